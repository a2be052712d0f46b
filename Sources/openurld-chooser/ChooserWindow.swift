import CGtk
import ChooserService
import Desktop
import DispatcherAPI
import HostNames
import Router
import Routing

/// One "Open Link" window: the URL with its host emphasised and its
/// warnings, the targets, an editable address, "Remember", and the answer
/// sent once (chosen, cancelled, or use the default).
///
/// Lives on the GTK main thread; `open` keeps it alive until it has answered.
final class ChooserWindow {
    let request: ChoiceRequest
    private let answer: @Sendable (DispatcherAPI.ChooserReply) -> Void

    private var window: Object!
    private var list: Object!
    /// The list's scrolled window.
    private var scroller: Object!
    private var entry: Object!
    private var problem: Object!
    /// The address line, its host in bold.
    private var address: Object!
    /// The warnings about the address as it stands.
    private var warnings: Object!
    /// What Remember is for: the host of the address as it stands.
    private var rememberTargets: RememberTargets?
    private var rememberHost: Object?
    private var rememberDomain: Object?
    private var useDefault: Object!
    /// The header's title, whose subtitle says who asked and how many other links wait.
    private var heading: Object!
    private var rows: [Object] = []

    /// Shows a window for `request`; `answer` is called once, on the main
    /// thread. After `timeout` (just before the daemon stops waiting) the
    /// window closes and answers "unanswered": a later pick would open nothing.
    static func show(_ request: ChoiceRequest, closingAfter timeout: Duration? = nil,
                     answer: @escaping @Sendable (DispatcherAPI.ChooserReply) -> Void) {
        let chooser = ChooserWindow(request: request, answer: answer)
        chooser.build()
        if let timeout {
            let (seconds, attoseconds) = timeout.components
            let milliseconds = UInt32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
            g_timeout_add(milliseconds, { data in
                // By id, not by pointer: a window that already answered is no longer in `open`.
                let id = Int(bitPattern: data)
                ChooserWindow.open[id]?.finish(.unanswered)
                return 0
            }, UnsafeMutableRawPointer(bitPattern: chooser.id))
        }
    }

    /// The windows still waiting for an answer, by id (this keeps them
    /// alive, and lets a timer find one without holding it); main thread only.
    nonisolated(unsafe) private static var open: [Int: ChooserWindow] = [:]
    nonisolated(unsafe) private static var lastID = 0
    private let id: Int

    private init(request: ChoiceRequest, answer: @escaping @Sendable (DispatcherAPI.ChooserReply) -> Void) {
        self.request = request
        self.answer = answer
        Self.lastID += 1
        id = Self.lastID
        Self.open[id] = self
    }

    private func build() {
        window = raw(adw_window_new())
        gtk_window_set_title(openurld_window(window), "Open Link")
        gtk_window_set_default_size(openurld_window(window), 480, -1)
        name(window, "Open Link")

        let content = box(GTK_ORIENTATION_VERTICAL, spacing: 0)
        let header = raw(adw_header_bar_new())
        let title = adw_window_title_new("Open Link", "")!
        heading = raw(title)
        adw_header_bar_set_title_widget(OpaquePointer(header), title)
        append(content, header)

        let body = box(GTK_ORIENTATION_VERTICAL, spacing: 10)
        margins(body, 12)
        append(content, body)

        let address = label("", wrap: true)
        // At most three lines: the whole address is in the field below and the tooltip.
        gtk_label_set_lines(openurld_label(address), 3)
        gtk_label_set_ellipsize(openurld_label(address), PANGO_ELLIPSIZE_END)
        gtk_label_set_selectable(openurld_label(address), 1)
        gtk_widget_set_focusable(openurld_widget(address), 0)
        self.address = address
        append(body, address)
        warnings = box(GTK_ORIENTATION_VERTICAL, spacing: 10)
        append(body, warnings)

        list = raw(gtk_list_box_new())
        gtk_list_box_set_selection_mode(openurld_list_box(list), GTK_SELECTION_SINGLE)
        gtk_widget_add_css_class(openurld_widget(list), "boxed-list")
        name(list, "Open with")
        for (index, candidate) in request.candidates.enumerated() {
            let row = raw(adw_action_row_new())
            adw_preferences_row_set_title(openurld_preferences_row(row), markupEscaped(candidate.name))
            adw_action_row_set_subtitle(openurld_action_row(row), markupEscaped(candidate.target.description))
            let icon = image(for: candidate.icon)
            gtk_image_set_pixel_size(OpaquePointer(icon), 32)
            adw_action_row_add_prefix(openurld_action_row(row), icon)
            let isDefault = candidate.target == request.defaultApplication?.target
            if isDefault {
                let mark = label("Default", classes: ["dim-label", "caption"])
                gtk_widget_set_valign(openurld_widget(mark), GTK_ALIGN_CENTER)
                adw_action_row_add_suffix(openurld_action_row(row), openurld_widget(mark))
            }
            if index < 9 {
                let key = label("\(index + 1)", classes: ["dim-label"])
                adw_action_row_add_suffix(openurld_action_row(row), openurld_widget(key))
            }
            gtk_list_box_row_set_activatable(openurld_list_box_row(row), 1)
            // The row's title is its accessible name; the default and the key are said after it.
            let said = (isDefault ? ["the default"] : []) + (index < 9 ? ["key \(index + 1)"] : [])
            if !said.isEmpty { openurld_accessible_description(row, said.joined(separator: ", ")) }
            gtk_list_box_append(openurld_list_box(list), openurld_widget(row))
            rows.append(row)
        }
        openurld_connect_arg(list, "row-activated", { _, row, data in
            let chooser = target(data, as: ChooserWindow.self)
            if let index = chooser.rows.firstIndex(of: row!) { chooser.choose(index) }
        }, Unmanaged.passUnretained(self).toOpaque())
        // The targets scroll: the window never grows past the screen, however many there are.
        let scroller = raw(gtk_scrolled_window_new())
        gtk_scrolled_window_set_policy(openurld_scrolled_window(scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_scrolled_window_set_propagate_natural_height(openurld_scrolled_window(scroller), 1)
        self.scroller = scroller
        gtk_scrolled_window_set_child(openurld_scrolled_window(scroller), openurld_widget(list))
        append(body, scroller)

        entry = raw(gtk_entry_new())
        gtk_editable_set_text(openurld_editable(entry), shownAddress)
        name(entry, "Link address")
        // What the window says about the link follows the address being edited.
        connect(entry, "changed", self) { _, data in target(data, as: ChooserWindow.self).describe() }
        connect(entry, "activate", self) { _, data in
            let chooser = target(data, as: ChooserWindow.self)
            chooser.choose(chooser.selectedIndex)
        }
        append(body, entry)
        problem = label("", wrap: true, classes: ["error"])
        gtk_widget_set_visible(openurld_widget(problem), 0)
        append(body, problem)

        if request.remember != nil {
            // Labels are set by `describe`, for the host being edited.
            let host = raw(gtk_check_button_new_with_mnemonic(""))
            append(body, host)
            rememberHost = host
            let whole = raw(gtk_check_button_new_with_label(""))
            gtk_check_button_set_group(openurld_check_button(whole), nil)
            append(body, whole)
            rememberDomain = whole
        }
        describe()

        let buttons = box(GTK_ORIENTATION_HORIZONTAL, spacing: 8)
        gtk_widget_set_halign(openurld_widget(buttons), GTK_ALIGN_END)
        // Buttons are named by their labels; descriptions say what they do.
        let cancel = button("_Cancel")
        openurld_accessible_description(cancel, "Do not open the link")
        connect(cancel, "clicked", self) { _, data in target(data, as: ChooserWindow.self).finish(.cancelled) }
        // Named for where it goes: the default application, when there is one.
        let useDefault = button(request.defaultApplication.map { "Use _Default (" + mnemonicEscaped($0.name) + ")" } ?? "Use _Default")
        if let text = gtk_button_get_child(openurld_button(useDefault)) {
            gtk_label_set_ellipsize(openurld_label(raw(text)), PANGO_ELLIPSIZE_MIDDLE)
            gtk_label_set_max_width_chars(openurld_label(raw(text)), 28)
        }
        self.useDefault = useDefault
        openurld_accessible_description(useDefault, useDefaultDescription)
        connect(useDefault, "clicked", self) { _, data in target(data, as: ChooserWindow.self).finish(.useDefault) }
        // "Remember" remembers a target: with it ticked, Use Default would
        // remember nothing and say nothing, so it is off, and says why.
        for box in [rememberHost, rememberDomain].compactMap({ $0 }) {
            connect(box, "toggled", self) { _, data in target(data, as: ChooserWindow.self).rememberToggled() }
        }
        let open = button("_Open", classes: ["suggested-action"])
        openurld_accessible_description(open, "Open the link with the selected application")
        connect(open, "clicked", self) { _, data in
            let chooser = target(data, as: ChooserWindow.self)
            chooser.choose(chooser.selectedIndex)
        }
        for button in [cancel, useDefault, open] { append(buttons, button) }
        append(body, buttons)

        let keys = gtk_event_controller_key_new()!
        gtk_event_controller_set_propagation_phase(openurld_controller(raw(keys)), GTK_PHASE_CAPTURE)
        openurld_connect_key(raw(keys), { _, keyval, _, state, data in
            target(data, as: ChooserWindow.self).key(keyval, state) ? 1 : 0
        }, Unmanaged.passUnretained(self).toOpaque())
        gtk_widget_add_controller(openurld_widget(window), openurld_controller(raw(keys)))
        openurld_connect_bool(window, "close-request", { _, data in
            target(data, as: ChooserWindow.self).finish(.cancelled, closing: false)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        if ChooserTrace.enabled { connect(window, "map", self) { _, _ in ChooserTrace.mapped() } }

        adw_window_set_content(openurld_adw_window(window), openurld_widget(content))
        // The list may take what the screen has left once the rest is laid out.
        gtk_scrolled_window_set_max_content_height(openurld_scrolled_window(scroller), 1)
        var others: Int32 = 0
        gtk_widget_measure(openurld_widget(content), GTK_ORIENTATION_VERTICAL, 480, nil, &others, nil, nil)
        gtk_scrolled_window_set_max_content_height(openurld_scrolled_window(scroller), Self.listHeightLimit(besides: others))
        if let first = rows.first {
            gtk_list_box_select_row(openurld_list_box(list), openurld_list_box_row(first))
            gtk_window_set_focus(openurld_window(window), openurld_widget(first))
        }
        ChooserTrace.mark("presented")
        gtk_window_present(openurld_window(window))
        Self.sayWhatWaits()
    }

    /// Shows the address as it stands in the field: the host in bold (as the
    /// display policy shows it), its warnings, and what Remember is for, so
    /// that what the window says is about the link that will open. An
    /// address that cannot be opened is shown plain, and says so.
    private func describe() {
        let text = currentText
        let url = text == shownAddress ? request.url : try? ValidatedURL(text)
        var lines: [String] = []
        // What the window says of the link, spoken and in the tooltip too: the host as the display policy shows it.
        var shown = text
        if let url {
            let presentation = LinkPresentation(url, linkText: request.linkText)
            gtk_label_set_markup(openurld_label(address), presentation.markup)
            lines = presentation.warnings.map(\.message)
            shown = presentation.beforeHost + presentation.host + presentation.afterHost
            gtk_widget_set_visible(openurld_widget(problem), 0)
        } else {
            gtk_label_set_markup(openurld_label(address), LinkPresentation.unhyphenated(markupEscaped(text)))
        }
        gtk_widget_set_tooltip_text(openurld_widget(address), shown)
        name(address, "Link: " + shown)
        while let child = gtk_widget_get_first_child(openurld_widget(warnings)) {
            gtk_box_remove(openurld_box(warnings), child)
        }
        for message in lines {
            let line = label("", wrap: true, classes: ["warning"])
            gtk_label_set_markup(openurld_label(line), LinkPresentation.unhyphenated(markupEscaped("⚠ " + message)))
            name(line, "Warning: " + message)
            append(warnings, line)
        }
        gtk_widget_set_visible(openurld_widget(warnings), lines.isEmpty ? 0 : 1)
        describeRemember(for: url)
    }

    /// Remember's boxes name the host (and domain) of `url`, as shown; an
    /// address with no host to remember hides them.
    private func describeRemember(for url: ValidatedURL?) {
        guard let host = rememberHost, let whole = rememberDomain else { return }
        let targets = url.flatMap { url in url == request.url ? request.remember : ChooserWindow.scopes.targets(for: url) }
        rememberTargets = targets
        gtk_widget_set_visible(openurld_widget(host), targets == nil ? 0 : 1)
        gtk_widget_set_visible(openurld_widget(whole), targets?.domain == nil ? 0 : 1)
        guard let targets else {
            for box in [host, whole] { gtk_check_button_set_active(openurld_check_button(box), 0) }
            return
        }
        let shownHost = HostDisplay(targets.host).shown
        // Peer text in a mnemonic label: each "_" doubled, or `my_site` would show as "mysite".
        gtk_check_button_set_label(openurld_check_button(host), "_Remember for " + mnemonicEscaped(shownHost))
        gtk_check_button_set_use_underline(openurld_check_button(host), 1)
        name(host, "Remember for " + shownHost)  // not "_Remember for …"
        if let domain = targets.domain {
            let shownDomain = HostDisplay(domain).shown
            gtk_check_button_set_label(openurld_check_button(whole), "Remember for all of " + shownDomain)
            name(whole, "Remember for all of " + shownDomain)
        } else if gtk_check_button_get_active(openurld_check_button(whole)) != 0 {
            gtk_check_button_set_active(openurld_check_button(whole), 0)
        }
    }

    /// The registrable domains of edited addresses (the Public Suffix List, read once).
    private static let scopes = RememberScopes()

    /// The most the target list may take: the first monitor's height less
    /// `others` (the rest of the window: header, address, warnings, the
    /// field, Remember, the buttons) and a little room, and never under three rows.
    static func listHeightLimit(besides others: Int32) -> Int32 {
        var height: Int32 = 768
        if let display = gdk_display_get_default(), let monitors = gdk_display_get_monitors(display),
           let first = g_list_model_get_item(monitors, 0) {
            var geometry = GdkRectangle()
            gdk_monitor_get_geometry(OpaquePointer(first), &geometry)
            g_object_unref(first)
            if geometry.height > 0 { height = geometry.height }
        }
        // The frame's shadow, or a panel: a window manager fits the rest to
        // its work area, which it can, as the list's minimum is small.
        return max(170, height - others - 24)
    }

    /// What Use Default does, with where it goes.
    private var useDefaultDescription: String {
        "Open the link as if nobody had asked" + (request.defaultApplication.map { ": with " + $0.name + ", the default" } ?? "")
    }
    static let useDefaultWhileRemembering = "Remember keeps a target for this host; untick it to use the default"

    /// Use Default is off while a Remember box is ticked.
    private func rememberToggled() {
        let remembering = [rememberHost, rememberDomain].compactMap { $0 }
            .contains { gtk_check_button_get_active(openurld_check_button($0)) != 0 }
        gtk_widget_set_sensitive(openurld_widget(useDefault), remembering ? 0 : 1)
        gtk_widget_set_tooltip_text(openurld_widget(useDefault), remembering ? Self.useDefaultWhileRemembering : nil)
        openurld_accessible_description(useDefault, remembering ? Self.useDefaultWhileRemembering : useDefaultDescription)
    }

    private var selectedIndex: Int {
        guard let row = gtk_list_box_get_selected_row(openurld_list_box(list)) else { return 0 }
        return rows.firstIndex(of: raw(row)) ?? 0
    }

    /// Esc cancels; 1–9 choose when the address is not being edited; Ctrl+C
    /// copies the URL; Ctrl+L edits it (the browsers' shortcut for the address).
    private func key(_ keyval: UInt32, _ state: GdkModifierType) -> Bool {
        let focus = gtk_window_get_focus(openurld_window(window))
        let editing = focus.map { raw($0) == entry || gtk_widget_is_ancestor($0, openurld_widget(entry)) != 0 } ?? false
        let inList = focus.map { gtk_widget_is_ancestor($0, openurld_widget(list)) != 0 } ?? false
        switch keyval {
        case UInt32(GDK_KEY_Escape) where editing && currentText != shownAddress:
            // Esc undoes the edit first (the browsers' address bar does); a second Esc cancels.
            gtk_editable_set_text(openurld_editable(entry), shownAddress)
            gtk_editable_set_position(openurld_editable(entry), -1)
            return true
        case UInt32(GDK_KEY_Escape):
            finish(.cancelled)
            return true
        // Moving the focus never changes the choice: the list box would move
        // its cursor (and the selection) to the next row; Tab leaves the list
        // instead, and Shift+Tab from the field comes back to the row chosen.
        case UInt32(GDK_KEY_Tab) where inList && state.rawValue & GDK_SHIFT_MASK.rawValue == 0:
            gtk_widget_grab_focus(openurld_widget(entry))
            return true
        case UInt32(GDK_KEY_ISO_Left_Tab) where editing, UInt32(GDK_KEY_Tab) where editing && state.rawValue & GDK_SHIFT_MASK.rawValue != 0:
            if let row = gtk_list_box_get_selected_row(openurld_list_box(list)) { gtk_widget_grab_focus(openurld_widget(raw(row))) }
            return true
        case UInt32(GDK_KEY_ISO_Left_Tab) where inList:
            // Before the list there is nothing to reach but the address text, which is not focusable.
            return true
        case UInt32(GDK_KEY_1)...UInt32(GDK_KEY_9) where !editing && state.rawValue & GDK_CONTROL_MASK.rawValue == 0:
            let index = Int(keyval - UInt32(GDK_KEY_1))
            if index < rows.count { choose(index) }
            return true
        case UInt32(GDK_KEY_l) where state.rawValue & GDK_CONTROL_MASK.rawValue != 0:
            gtk_widget_grab_focus(openurld_widget(entry))
            return true
        case UInt32(GDK_KEY_c) where !editing && state.rawValue & GDK_CONTROL_MASK.rawValue != 0:
            gdk_clipboard_set_text(gtk_widget_get_clipboard(openurld_widget(window)), addressToOpen)
            return true
        default:
            return false
        }
    }

    private var currentText: String { String(cString: gtk_editable_get_text(openurld_editable(entry))) }

    /// The address as the field first shows it: the request's, its host as
    /// the display policy shows it (a look-alike in ASCII, not a field that
    /// reads "https://apple.com/login"). The same URL to every browser.
    private lazy var shownAddress: String = {
        let presentation = LinkPresentation(request.url)
        return presentation.beforeHost + presentation.host + presentation.afterHost
    }()

    /// The address to open: the request's own text unless the person edited it.
    private var addressToOpen: String { currentText == shownAddress ? request.url.text : currentText }

    /// Opens candidate `index` with the (possibly edited) address.
    private func choose(_ index: Int) {
        guard index < request.candidates.count else { return }
        let text = addressToOpen
        do {
            _ = try ValidatedURL(text)
        } catch {
            gtk_label_set_text(openurld_label(problem), "This address cannot be opened: \(error.message)")
            gtk_widget_set_visible(openurld_widget(problem), 1)
            gtk_widget_grab_focus(openurld_widget(entry))
            return
        }
        let candidate = request.candidates[index]
        let scope: RememberScope = if rememberTargets == nil {
            .none
        } else if let domain = rememberDomain, gtk_check_button_get_active(openurld_check_button(domain)) != 0 {
            .domain
        } else if let host = rememberHost, gtk_check_button_get_active(openurld_check_button(host)) != 0 {
            .host
        } else {
            .none
        }
        let token = openurld_activation_token(openurld_widget(window), candidate.name).map { pointer in
            defer { g_free(pointer) }
            return String(cString: pointer)
        }
        finish(.chosen(candidate.target, url: text, activationToken: token, remember: scope))
    }

    /// Sends the answer (once) and closes the window.
    func finish(_ reply: DispatcherAPI.ChooserReply, closing: Bool = true) {
        // Still in `open` means not yet answered; taking it out is answering.
        guard Self.open.removeValue(forKey: id) != nil else { return }
        // Closed, and the display told so, before the answer goes: by the
        // time the caller hears, the window is gone.
        if closing {
            let display = gtk_widget_get_display(openurld_widget(window))
            gtk_window_destroy(openurld_window(window))
            if let display { gdk_display_flush(display) }
        }
        answer(reply)
        Self.sayWhatWaits()
    }

    /// Two questions at once are two windows, one over the other: each says
    /// who asked and how many other links are waiting, so that none hides
    /// another unnoticed (each answers its own link, shown in it).
    private static func sayWhatWaits() {
        let others = open.count - 1
        for chooser in open.values {
            var parts: [String] = []
            if let app = chooser.request.callerAppID { parts.append("from " + app) }
            if others > 0 { parts.append(others == 1 ? "1 more link waiting" : "\(others) more links waiting") }
            adw_window_title_set_subtitle(OpaquePointer(chooser.heading), parts.joined(separator: " · "))
        }
    }
}
