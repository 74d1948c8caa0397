/// The club's rules (drafts, the outbox and its write path, the cache, the club's layout and its
/// tabs, the backends) live in the core, ClubKit, a module with no UI that the command line
/// imports too; the app's types carry them (AppConfiguration, AppState), so they come with the
/// app's module.
@_exported import ClubKit
