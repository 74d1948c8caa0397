// A release byteclub links the Swift runtime and Foundation statically (Package.swift). A static
// library's own dependencies reach the link through the autolink entries of the objects that import
// it, written when they are compiled with `-static-stdlib`; only this module is. So it imports every
// Foundation module the program uses, even one only other modules call (FoundationXML: WebDAV's
// multistatus, in Remote), so that their libraries (`_CFXMLInterface`, `xml2`) are named.
import Foundation
import FoundationXML
