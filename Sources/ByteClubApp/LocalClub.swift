/// The club's things kept on this machine (drafts, the outbox, the cache, the club's layout and
/// its tabs) live in LocalClub, a module with no UI that the command line's ClubKit shares; the
/// app's types carry them (AppConfiguration, AppState), so they come with the app's module.
@_exported import LocalClub
