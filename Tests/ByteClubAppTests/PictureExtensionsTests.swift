import Imaging
import ClubKit
import Markdown
import XCTest

/// The picture extensions, kept in three modules that do not link each other, are one list.
final class PictureExtensionsTests: XCTestCase {
    func testPanoPhotosNotesAndImagingAgreeOnWhatIsAPicture() {
        XCTAssertEqual(ClubLayout.photoExtensions, PictureFormat.fileExtensions)
        XCTAssertEqual(NoteLinkTarget.photoExtensions, Set(PictureFormat.fileExtensions))
    }
}
