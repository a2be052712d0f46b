// The floor for the chooser's time to the screen: the smallest GTK 4
// program that maps a window (a title and one label), printing
// "mapped SECONDS" (CLOCK_MONOTONIC) when it is mapped, then exiting.
#include <gtk/gtk.h>
#include <stdio.h>
#include <time.h>

static GMainLoop *loop;

static gboolean quit(gpointer data) {
    (void)data;
    g_main_loop_quit(loop);
    return G_SOURCE_REMOVE;
}

static void mapped(GtkWidget *widget, gpointer data) {
    (void)widget; (void)data;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    printf("mapped %ld.%09ld\n", (long)now.tv_sec, now.tv_nsec);
    fflush(stdout);
    g_idle_add(quit, NULL);
}

int main(void) {
    gtk_init();
    loop = g_main_loop_new(NULL, FALSE);
    GtkWidget *window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(window), "Floor");
    gtk_window_set_child(GTK_WINDOW(window), gtk_label_new("https://example.com/"));
    g_signal_connect(window, "map", G_CALLBACK(mapped), NULL);
    gtk_window_present(GTK_WINDOW(window));
    g_main_loop_run(loop);
    return 0;
}
