import CGtk
import Desktop
import DispatcherAPI
import FileAccess
import Rules
import Spawn
import XDG

/// The chooser's face on the desktop: whether openurld is the default
/// browser (with a button to make it so), the remembered choices (each with
/// Forget), the loaded rules with their problems, and where rule files go.
final class PreferencesWindow {
    let environment: [String: String]
    let base: BaseDirectories
    private let onClose: () -> Void
    private var window: Object!
    private var page: Object?
    private var keepAlive: PreferencesWindow?
    /// The Forget buttons, in the list's order (for keeping the focus in it).
    private var forgetButtons: [Object] = []
    /// The row saying nothing is remembered, when that is so.
    private var rememberedPlaceholder: Object?
    /// What each row's button (Use, Forget) does when pressed.
    private var rowActions: [(button: Object, run: (PreferencesWindow) -> Void)] = []

    /// The window's title and accessible name.
    static let title = "Link Chooser"

    /// The window open, if any (there is one per process); main thread only.
    nonisolated(unsafe) static var current: PreferencesWindow?

    static func show(environment: [String: String], onClose: @escaping () -> Void) {
        let preferences = PreferencesWindow(environment: environment, onClose: onClose)
        preferences.keepAlive = preferences
        current = preferences
        preferences.window = raw(adw_preferences_window_new())
        // One name for it, the one the application grid shows (the desktop file's Name=).
        gtk_window_set_title(openurld_window(preferences.window), PreferencesWindow.title)
        gtk_window_set_default_size(openurld_window(preferences.window), 640, 560)
        name(preferences.window, PreferencesWindow.title)
        // A page this short needs no search, whose button and entry libadwaita 1.2 leaves unnamed.
        adw_preferences_window_set_search_enabled(openurld_preferences_window(preferences.window), 0)
        // Esc and Ctrl+W close it, as they close a dialog (Ctrl+Q still does too).
        let shortcuts = raw(gtk_shortcut_controller_new())
        gtk_shortcut_controller_add_shortcut(
            openurld_shortcut_controller(shortcuts),
            gtk_shortcut_new(gtk_shortcut_trigger_parse_string("Escape|<Control>w"), gtk_named_action_new("window.close")))
        gtk_widget_add_controller(openurld_widget(preferences.window), openurld_controller(shortcuts))
        // The search entry libadwaita keeps even with search off is named by its type for assistive technology.
        nameSearchEntries(below: preferences.window, "Search preferences")
        openurld_connect_bool(preferences.window, "close-request", { _, data in
            let preferences = target(data, as: PreferencesWindow.self)
            preferences.onClose()
            preferences.keepAlive = nil
            PreferencesWindow.current = nil
            return 0
        }, Unmanaged.passUnretained(preferences).toOpaque())
        preferences.refresh()
        gtk_window_present(openurld_window(preferences.window))
    }

    private init(environment: [String: String], onClose: @escaping () -> Void) {
        self.environment = environment
        self.base = BaseDirectories(environment: environment)
        self.onClose = onClose
    }

    /// Builds the page anew from the files.
    func refresh() {
        if let page { adw_preferences_window_remove(openurld_preferences_window(window), openurld_preferences_page(page)) }
        forgetButtons = []
        rowActions = []
        let page = raw(adw_preferences_page_new())
        self.page = page
        adw_preferences_page_add(openurld_preferences_page(page), openurld_preferences_group(defaultBrowserGroup()))
        if let behind = browserBehindGroup() { adw_preferences_page_add(openurld_preferences_page(page), openurld_preferences_group(behind)) }
        adw_preferences_page_add(openurld_preferences_page(page), openurld_preferences_group(notificationsGroup()))
        adw_preferences_page_add(openurld_preferences_page(page), openurld_preferences_group(rememberedGroup()))
        adw_preferences_page_add(openurld_preferences_page(page), openurld_preferences_group(rulesGroup()))
        adw_preferences_window_add(openurld_preferences_window(window), openurld_preferences_page(page))
    }

    private func group(_ title: String, description: String? = nil) -> Object {
        let group = raw(adw_preferences_group_new())
        adw_preferences_group_set_title(openurld_preferences_group(group), title)
        if let description { adw_preferences_group_set_description(openurld_preferences_group(group), markupEscaped(description)) }
        return group
    }

    private func row(_ title: String, _ subtitle: String = "", in group: Object) -> Object {
        let row = raw(adw_action_row_new())
        adw_preferences_row_set_title(openurld_preferences_row(row), markupEscaped(title))
        if !subtitle.isEmpty { adw_action_row_set_subtitle(openurld_action_row(row), markupEscaped(subtitle)) }
        adw_preferences_group_add(openurld_preferences_group(group), openurld_widget(row))
        return row
    }

    private var database: DesktopDatabase { DesktopDatabase(environment: environment) }
    private var system: ApplicationCatalog.System { DesktopDatabase.system(path: environment["PATH"]) }

    /// Whether the desktop's default for https is the dispatcher (whichever mimeapps.list says so).
    private var isDefaultBrowser: Bool {
        guard let catalog = try? database.catalog(), let current = catalog.currentDefault(for: "x-scheme-handler/https", system: system) else {
            return false
        }
        return catalog.isDispatcher(current, system: system)
    }

    private func defaultBrowserGroup() -> Object {
        let group = group("Default Browser")
        if isDefaultBrowser {
            _ = row("openurld is your default browser", "Links from every application go through your rules and the chooser", in: group)
        } else {
            let row = row("openurld is not your default browser", "Links go straight to another application", in: group)
            let make = button("Make _Default", classes: ["suggested-action"])
            gtk_widget_set_valign(openurld_widget(make), GTK_ALIGN_CENTER)
            openurld_accessible_description(make, "Make openurld the default web browser")
            connect(make, "clicked", self) { _, data in target(data, as: PreferencesWindow.self).makeDefault() }
            adw_action_row_add_suffix(openurld_action_row(row), openurld_widget(make))
        }
        return group
    }

    /// "Links no rule decides open in": the application behind the
    /// dispatcher, where the answer came from, and the web browsers to pick
    /// instead, each with a Use button (the pick is kept in openurld's
    /// record, as `set-default --fallback=` keeps it). `nil` when openurld is
    /// not the default browser: then links go to the default directly.
    private func browserBehindGroup() -> Object? {
        guard isDefaultBrowser, let catalog = try? database.catalog() else { return nil }
        let current = try? database.fallbackApplication(forScheme: "https", system: system)
        var choices: [String] = current.map { [$0.entry.id] } ?? []
        for id in catalog.associatedApplications(for: "x-scheme-handler/https") where !choices.contains(id) {
            if let entry = catalog.entries[id]?.entry, catalog.isUsable(entry, system: system) { choices.append(id) }
        }
        let description = current.map { "Now " + ($0.entry.name) + ": " + $0.reason.rawValue }
            ?? "No other application is set up for https links: they are not opened"
        let group = group("Links No Rule Decides Open In", description: description)
        for id in choices {
            let shown = catalog.entries[id]?.entry.name ?? id
            let isCurrent = id == current?.entry.id
            let row = row(shown, isCurrent ? "Opens the links no rule decides" : id, in: group)
            if isCurrent {
                let mark = raw(gtk_image_new_from_icon_name("object-select-symbolic"))
                name(mark, "Chosen")
                adw_action_row_add_suffix(openurld_action_row(row), openurld_widget(mark))
                continue
            }
            addButton("_Use", describedAs: "Open the links no rule decides in " + shown, to: row) { $0.chooseBrowserBehind(id) }
        }
        return group
    }

    /// Keeps `id` as the application behind the dispatcher for web links, then shows the page again.
    private func chooseBrowserBehind(_ id: String) {
        let file = PreviousDefaultsFile(base: base)
        var record = file.read()
        let types = ["x-scheme-handler/http", "x-scheme-handler/https"]
        for type in types { record[type] = id }
        _ = try? file.store(record, types: types)
        onMain { PreferencesWindow.current?.refresh() }
    }

    private func notificationsGroup() -> Object {
        let settings = NotificationSettings(base: base)
        let group = group("Notifications", description: "Kept in " + settings.path)
        let row = row("Show links that could not be opened", "When the program that opened them has nowhere to say it", in: group)
        let toggle = raw(gtk_switch_new())
        gtk_switch_set_active(openurld_switch(toggle), settings.showsFailures ? 1 : 0)
        gtk_widget_set_valign(openurld_widget(toggle), GTK_ALIGN_CENTER)
        openurld_connect_arg(toggle, "notify::active", { toggle, _, data in
            let preferences = target(data, as: PreferencesWindow.self)
            let shows = gtk_switch_get_active(openurld_switch(toggle)) != 0
            _ = try? NotificationSettings(base: preferences.base).setShowsFailures(shows)
        }, Unmanaged.passUnretained(self).toOpaque())
        adw_action_row_add_suffix(openurld_action_row(row), openurld_widget(toggle))
        adw_action_row_set_activatable_widget(openurld_action_row(row), openurld_widget(toggle))
        return group
    }

    /// Runs `openurl set-default --browser`, which checks the installation first.
    private func makeDefault() {
        guard let openurl = findExecutable("openurl", path: environment["PATH"]) else { return }
        let environment = self.environment
        Task.detached {
            _ = try? await runCapturingOutput(openurl, arguments: ["openurl", "set-default", "--browser"],
                                              environment: environment.map { $0.key + "=" + $0.value }, deadline: .seconds(10))
            onMain { PreferencesWindow.current?.refresh() }
        }
    }

    private func rememberedGroup() -> Object {
        let file = RememberedChoiceFile(base: base)
        let group = group("Remembered Choices", description: "Kept as rules in " + file.path)
        let remembered = file.rules().rules.filter { $0.name.hasPrefix(RememberedChoices.namePrefix) }
        rememberedPlaceholder = nil
        if remembered.isEmpty {
            rememberedPlaceholder = row("Nothing remembered yet", "Tick “Remember” in the chooser to add one", in: group)
        }
        for rule in remembered {
            let host = String(rule.name.dropFirst(RememberedChoices.namePrefix.count))
            let opened = if case .open(let target)? = rule.action { target.description } else { rule.effectDescription }
            let row = row(host, "Opens with " + opened, in: group)
            let index = forgetButtons.count
            forgetButtons.append(addButton("_Forget", describedAs: "Forget the choice for " + host, to: row) { preferences in
                let bare = host.hasPrefix("*.") ? String(host.dropFirst(2)) : host
                _ = try? RememberedChoiceFile(base: preferences.base).forget(bare)
                preferences.refresh()
                preferences.focusRemembered(near: index)
            })
        }
        return group
    }

    /// A flat button at the end of `row`, described for assistive
    /// technology, that runs `run` when pressed.
    @discardableResult
    private func addButton(_ label: String, describedAs description: String, to row: Object, run: @escaping (PreferencesWindow) -> Void) -> Object {
        let button = button(label, classes: ["flat"])
        gtk_widget_set_valign(openurld_widget(button), GTK_ALIGN_CENTER)
        openurld_accessible_description(button, description)
        rowActions.append((button, run))
        connect(button, "clicked", self) { button, data in
            let preferences = target(data, as: PreferencesWindow.self)
            // Found first, then run: running rebuilds the page and the list of actions.
            guard let run = preferences.rowActions.first(where: { $0.button == button })?.run else { return }
            run(preferences)
        }
        adw_action_row_add_suffix(openurld_action_row(row), openurld_widget(button))
        return button
    }

    /// After a Forget, the page is built anew: the keyboard focus stays in
    /// the list, on the Forget now at `index` (or the last), not at the top.
    private func focusRemembered(near index: Int) {
        if let next = forgetButtons.isEmpty ? nil : forgetButtons[min(index, forgetButtons.count - 1)] {
            gtk_widget_grab_focus(openurld_widget(next))
        } else if let placeholder = rememberedPlaceholder {
            gtk_widget_grab_focus(openurld_widget(placeholder))
        }
    }

    private func rulesGroup() -> Object {
        let directories = RuleFiles.directories(base)
        let load = RuleFiles.load(from: directories)
        let group = group("Rules", description: "Read from " + directories.joined(separator: ", ") + "; see openurl help rules")
        if load.rules.isEmpty && load.diagnostics.isEmpty { _ = row("No rules", "Every link goes to the default application", in: group) }
        for rule in load.rules where !rule.name.hasPrefix(RememberedChoices.namePrefix) {
            let state = rule.isEnabled ? "" : " (disabled)"
            _ = row(rule.name + state, rule.effectDescription + " — " + rule.source.description, in: group)
        }
        for diagnostic in load.diagnostics {
            let row = row("Problem", diagnostic.description, in: group)
            gtk_widget_add_css_class(openurld_widget(row), "error")
        }
        return group
    }
}
