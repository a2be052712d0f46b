import CGtk
import ChooserService
import Glibc

// Small helpers over the GTK C API: main-thread hops, signals with a Swift
// object as their data, and typed casts.

/// Runs `body` on the GTK main thread, from any thread.
func onMain(_ body: @escaping @Sendable () -> Void) {
    final class Work { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
    let work = Unmanaged.passRetained(Work(body)).toOpaque()
    g_idle_add({ data in
        let work = Unmanaged<Work>.fromOpaque(data!).takeRetainedValue()
        work.body()
        return 0  // G_SOURCE_REMOVE
    }, work)
}

/// A GTK object pointer of any type, as the casts in shim.h take it.
typealias Object = UnsafeMutableRawPointer

func raw<T>(_ pointer: UnsafeMutablePointer<T>?) -> Object { Object(pointer!) }
func raw(_ pointer: OpaquePointer?) -> Object { Object(pointer!) }

/// The label's text with markup special characters escaped.
func markupEscaped(_ text: String) -> String {
    let escaped = g_markup_escape_text(text, -1)!
    defer { g_free(escaped) }
    return String(cString: escaped)
}

/// Text for a mnemonic label (`_Remember for HOST`) that shows every `_` of
/// `text` as itself: GTK reads `__` as one underscore and `_x` as a mnemonic.
func mnemonicEscaped(_ text: String) -> String {
    text.reduce(into: "") { escaped, character in escaped += character == "_" ? "__" : String(character) }
}

/// The image for a target's `Icon=`, or the generic application icon when
/// the theme has no such icon (see `CandidateIcon`).
func image(for icon: String) -> UnsafeMutablePointer<GtkWidget> {
    let theme = gtk_icon_theme_get_for_display(gdk_display_get_default())
    switch CandidateIcon(icon, themeHas: { gtk_icon_theme_has_icon(theme, $0) != 0 }, isReadableFile: { access($0, R_OK) == 0 }) {
    case .named(let name): return gtk_image_new_from_icon_name(name)
    case .file(let path): return gtk_image_new_from_file(path)
    }
}

/// Names every search entry below `root` (libadwaita's own ones have no name but their type's).
func nameSearchEntries(below root: Object, _ label: String) {
    var child = gtk_widget_get_first_child(openurld_widget(root))
    while let widget = child {
        if openurld_is_search_entry(widget) != 0 { name(raw(widget), label) }
        nameSearchEntries(below: raw(widget), label)
        child = gtk_widget_get_next_sibling(widget)
    }
}

/// Sets a widget's accessible name.
func name(_ widget: Object, _ label: String) { openurld_accessible_label(widget, label) }

/// Connects `handler` (no arguments) to `signal` of `instance`; `target` is
/// passed back, unretained: it must outlive the instance.
func connect(_ instance: Object, _ signal: String, _ target: AnyObject, _ handler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void) {
    openurld_connect(instance, signal, handler, Unmanaged.passUnretained(target).toOpaque())
}

/// The object passed to `connect`.
func target<T: AnyObject>(_ data: UnsafeMutableRawPointer?, as type: T.Type) -> T {
    Unmanaged<T>.fromOpaque(data!).takeUnretainedValue()
}

func box(_ orientation: GtkOrientation, spacing: Int32) -> Object {
    raw(gtk_box_new(orientation, spacing))
}

func append(_ container: Object, _ child: Object) {
    gtk_box_append(openurld_box(container), openurld_widget(child))
}

func label(_ text: String, wrap: Bool = false, classes: [String] = []) -> Object {
    let widget = gtk_label_new(text)!
    gtk_label_set_xalign(openurld_label(raw(widget)), 0)
    if wrap {
        gtk_label_set_wrap(openurld_label(raw(widget)), 1)
        gtk_label_set_wrap_mode(openurld_label(raw(widget)), PANGO_WRAP_WORD_CHAR)
    }
    for name in classes { gtk_widget_add_css_class(widget, name) }
    return raw(widget)
}

/// A button labelled `text` (`_` marks its mnemonic). The label is its own
/// child widget: GTK 4.8 would otherwise name the button, for AT-SPI, by
/// its mnemonic text and its label together ("_Cancel Cancel").
func button(_ text: String, classes: [String] = []) -> Object {
    let widget = gtk_button_new()!
    let label = gtk_label_new_with_mnemonic(text)!
    gtk_label_set_mnemonic_widget(openurld_label(raw(label)), widget)
    gtk_button_set_child(openurld_button(raw(widget)), label)
    for name in classes { gtk_widget_add_css_class(widget, name) }
    return raw(widget)
}

func margins(_ widget: Object, _ size: Int32) {
    let w = openurld_widget(widget)
    gtk_widget_set_margin_top(w, size)
    gtk_widget_set_margin_bottom(w, size)
    gtk_widget_set_margin_start(w, size)
    gtk_widget_set_margin_end(w, size)
}
