import Foundation
/// Placeholder; replaced by the club server.
public enum ClubServerPlaceholder {}
