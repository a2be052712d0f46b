/* A GTK 4 program opening a URI the way GTK apps do: through GIO, with the
 * display's launch context (which makes startup-notification IDs on X11 and
 * activation tokens on Wayland). Prints what GIO reports, then the result:
 *
 *   launch-started APP-ID PLATFORM-DATA
 *   opened | failed: MESSAGE
 *
 * Built and run by the tests under Xvfb (Tests/ClientTests/DesktopIntegrationTests.swift).
 */
#include <gtk/gtk.h>
#include <stdio.h>

static GMainLoop *loop;
static int status = 1;

static void on_launch_started(GAppLaunchContext *context, GAppInfo *info, GVariant *platform_data, gpointer unused) {
    gchar *text = platform_data ? g_variant_print(platform_data, FALSE) : g_strdup("{}");
    printf("launch-started %s %s\n", g_app_info_get_id(info), text);
    fflush(stdout);
    g_free(text);
}

static void on_done(GObject *source, GAsyncResult *result, gpointer unused) {
    GError *error = NULL;
    if (g_app_info_launch_default_for_uri_finish(result, &error)) {
        printf("opened\n");
        status = 0;
    } else {
        printf("failed: %s\n", error->message);
        g_error_free(error);
    }
    fflush(stdout);
    g_main_loop_quit(loop);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: gtk-open-uri URI\n");
        return 2;
    }
    gtk_init();
    GdkDisplay *display = gdk_display_get_default();
    if (display == NULL) {
        fprintf(stderr, "gtk-open-uri: cannot open the display\n");
        return 2;
    }
    GdkAppLaunchContext *context = gdk_display_get_app_launch_context(display);
    g_signal_connect(context, "launch-started", G_CALLBACK(on_launch_started), NULL);
    loop = g_main_loop_new(NULL, FALSE);
    g_app_info_launch_default_for_uri_async(argv[1], G_APP_LAUNCH_CONTEXT(context), NULL, on_done, NULL);
    g_main_loop_run(loop);
    g_object_unref(context);
    return status;
}
