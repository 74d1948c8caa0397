/// One line of help: the keys, what they do, and the group they are listed under.
///
/// Layers report these from ``Layer/commands()``; the help overlay and status-bar hints are
/// built from them, and a layer that dispatches through ``KeyBindings`` derives them from the
/// same table, so what help says and what keys do cannot drift apart.
public struct Command: Hashable, Sendable {
    public var keys: [Key]
    /// How the keys are written; by default their labels joined with " / ".
    public var keyLabel: String
    public var description: String
    public var group: String

    public init(keys: [Key], description: String, group: String, keyLabel: String? = nil) {
        self.keys = keys
        self.description = description
        self.group = group
        self.keyLabel = keyLabel ?? keys.map(\.label).joined(separator: " / ")
    }
}

/// A key table: which keys trigger which action, with the words help shows for each.
///
/// `Action` is the owner's own enum. Look a key up with ``action(for:)`` and switch on the
/// result; list ``commands`` from the layer's ``Layer/commands()``.
///
/// ```swift
/// enum NotesAction { case new, delete, rename }
/// let bindings = KeyBindings<NotesAction>(group: "Notes", [
///     .init([.char("n")], .new, "New note"),
///     .init([.char("d"), .delete], .delete, "Delete note"),
/// ])
/// ```
public struct KeyBindings<Action: Hashable & Sendable>: Sendable {
    /// One entry of the table.
    public struct Binding: Sendable {
        public var keys: [Key]
        public var action: Action
        public var description: String
        /// How the keys are written in help, when their labels are not the best way.
        public var keyLabel: String?
        /// Overrides the table's group.
        public var group: String?

        public init(_ keys: [Key], _ action: Action, _ description: String, keyLabel: String? = nil, group: String? = nil) {
            self.keys = keys
            self.action = action
            self.description = description
            self.keyLabel = keyLabel
            self.group = group
        }
    }

    /// The group help lists these bindings under.
    public var group: String
    public private(set) var bindings: [Binding]
    private var lookup: [Key: Action]

    public init(group: String, _ bindings: [Binding]) {
        self.group = group
        self.bindings = []
        self.lookup = [:]
        for binding in bindings { add(binding) }
    }

    /// Adds a binding; a key already bound keeps its first action.
    public mutating func add(_ binding: Binding) {
        bindings.append(binding)
        for key in binding.keys where lookup[key] == nil { lookup[key] = binding.action }
    }

    /// The action bound to `key`, if any.
    public func action(for key: Key) -> Action? { lookup[key] }

    /// The help lines for this table, one per binding, in order.
    public var commands: [Command] {
        bindings.map { Command(keys: $0.keys, description: $0.description, group: $0.group ?? group, keyLabel: $0.keyLabel) }
    }
}
