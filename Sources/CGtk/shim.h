// The one header through which Swift sees GTK 4 and libadwaita, for
// openurld-chooser only (the daemon and the CLI never link GTK).
//
// What Swift cannot call directly is wrapped here, and nothing else:
// G_CALLBACK casts for signal handlers of each shape, the GTK_ACCESSIBLE
// property setters (C variadics), and the GObject type-cast macros.
#ifndef OPENURLD_CGTK_SHIM_H
#define OPENURLD_CGTK_SHIM_H

#include <gtk/gtk.h>
#include <adwaita.h>

/// A handler `void (*)(instance, data)`: clicked, activate, map, toggled.
typedef void (*openurld_handler)(void *instance, void *data);
/// A handler `void (*)(instance, argument, data)`: row-activated.
typedef void (*openurld_handler_arg)(void *instance, void *argument, void *data);
/// A handler `gboolean (*)(instance, data)`: close-request.
typedef gboolean (*openurld_handler_bool)(void *instance, void *data);
/// A key handler: key-pressed of a GtkEventControllerKey.
typedef gboolean (*openurld_key_handler)(void *controller, guint keyval, guint keycode, GdkModifierType state, void *data);

static inline gulong openurld_connect(void *instance, const char *signal, openurld_handler handler, void *data) {
    return g_signal_connect_data(instance, signal, G_CALLBACK(handler), data, NULL, 0);
}
static inline gulong openurld_connect_arg(void *instance, const char *signal, openurld_handler_arg handler, void *data) {
    return g_signal_connect_data(instance, signal, G_CALLBACK(handler), data, NULL, 0);
}
static inline gulong openurld_connect_bool(void *instance, const char *signal, openurld_handler_bool handler, void *data) {
    return g_signal_connect_data(instance, signal, G_CALLBACK(handler), data, NULL, 0);
}
static inline gulong openurld_connect_key(void *instance, openurld_key_handler handler, void *data) {
    return g_signal_connect_data(instance, "key-pressed", G_CALLBACK(handler), data, NULL, 0);
}

/// The accessible name of a widget (what screen readers and AT-SPI read).
static inline void openurld_accessible_label(void *widget, const char *label) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}
/// The accessible description of a widget.
static inline void openurld_accessible_description(void *widget, const char *text) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
}

static inline GtkWidget *openurld_widget(void *object) { return GTK_WIDGET(object); }
static inline GtkWindow *openurld_window(void *object) { return GTK_WINDOW(object); }
static inline GtkBox *openurld_box(void *object) { return GTK_BOX(object); }
static inline GtkLabel *openurld_label(void *object) { return GTK_LABEL(object); }
static inline GtkEditable *openurld_editable(void *object) { return GTK_EDITABLE(object); }
static inline GtkListBox *openurld_list_box(void *object) { return GTK_LIST_BOX(object); }
static inline GtkListBoxRow *openurld_list_box_row(void *object) { return GTK_LIST_BOX_ROW(object); }
static inline GtkCheckButton *openurld_check_button(void *object) { return GTK_CHECK_BUTTON(object); }
static inline GtkButton *openurld_button(void *object) { return GTK_BUTTON(object); }
static inline GtkEventController *openurld_controller(void *object) { return GTK_EVENT_CONTROLLER(object); }
static inline AdwWindow *openurld_adw_window(void *object) { return ADW_WINDOW(object); }
static inline AdwPreferencesPage *openurld_preferences_page(void *object) { return ADW_PREFERENCES_PAGE(object); }
static inline AdwPreferencesGroup *openurld_preferences_group(void *object) { return ADW_PREFERENCES_GROUP(object); }
static inline AdwActionRow *openurld_action_row(void *object) { return ADW_ACTION_ROW(object); }
static inline AdwPreferencesRow *openurld_preferences_row(void *object) { return ADW_PREFERENCES_ROW(object); }
static inline AdwPreferencesWindow *openurld_preferences_window(void *object) { return ADW_PREFERENCES_WINDOW(object); }
static inline GtkSwitch *openurld_switch(void *object) { return GTK_SWITCH(object); }
static inline GtkScrolledWindow *openurld_scrolled_window(void *object) { return GTK_SCROLLED_WINDOW(object); }
static inline GtkShortcutController *openurld_shortcut_controller(void *object) { return GTK_SHORTCUT_CONTROLLER(object); }
/// GTK_IS_SEARCH_ENTRY, a type-check macro.
static inline gboolean openurld_is_search_entry(void *object) { return GTK_IS_SEARCH_ENTRY(object); }

/// A startup ID (X11) or XDG activation token (Wayland) for launching the
/// application the person chose, from this display, now that they acted.
static inline char *openurld_activation_token(GtkWidget *widget, const char *name) {
    GdkAppLaunchContext *context = gdk_display_get_app_launch_context(gtk_widget_get_display(widget));
    GAppInfo *info = g_app_info_create_from_commandline("true", name, G_APP_INFO_CREATE_SUPPORTS_STARTUP_NOTIFICATION, NULL);
    char *token = info ? g_app_launch_context_get_startup_notify_id(G_APP_LAUNCH_CONTEXT(context), info, NULL) : NULL;
    if (info) g_object_unref(info);
    g_object_unref(context);
    return token;
}

#endif
