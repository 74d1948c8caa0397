import Foundation
/// Placeholder; replaced by the JPEG codec.
public enum ImagingPlaceholder {}
