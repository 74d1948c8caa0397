/// App state and screens; see docs/architecture.md.
enum ByteClubAppPlaceholder {}
