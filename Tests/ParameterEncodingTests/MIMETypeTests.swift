import ParameterEncoding
import TestScheduling
import Testing

/// `MIMEType`: file name extensions to types and back.
@Suite(.backgroundPriority) struct MIMETypeTests {
    @Test(arguments: [
        ("photo.JPG", "image/jpeg"), ("/x/data.json", "application/json"), ("notes.txt", "text/plain"),
        ("archive.tar.gz", "application/gzip"), ("noextension", "application/octet-stream"),
        (".profile", "application/octet-stream"), ("odd.unknownext", "application/octet-stream"),
    ])
    func typesComeFromTheLastExtension(fileName: String, type: String) {
        #expect(MIMEType.forFileName(fileName) == type)
    }

    @Test(arguments: [
        ("application/json", "json"), ("application/json; charset=utf-8", "json"), (" Text/HTML ;charset=x", "html"),
        ("text/plain", "txt"), ("image/jpeg", "jpg"), ("image/png", "png"), ("application/octet-stream", "bin"),
        ("application/yaml", "yaml"), ("text/javascript", "js"), ("video/mp4", "mp4"), ("application/x-plist", "plist"),
        ("text/xml", "xml"),
    ])
    func typesGiveTheirUsualExtension(type: String, fileExtension: String) {
        #expect(MIMEType.fileExtension(for: type) == fileExtension)
    }

    @Test(arguments: ["", ";charset=utf-8", "application/x-unknown", "image"])
    func unknownTypesGiveNoExtension(type: String) {
        #expect(MIMEType.fileExtension(for: type) == nil)
    }

    @Test func everyExtensionsTypeLeadsBackToAnExtensionOfThatType() {
        for name in ["a.txt", "a.htm", "a.jpeg", "a.tif", "a.yml", "a.mjs", "a.m4v", "a.docx", "a.webm"] {
            let type = MIMEType.forFileName(name)
            let back = MIMEType.fileExtension(for: type)
            #expect(back.map { MIMEType.forFileName("x." + $0) } == type, "\(name) -> \(type) -> \(back ?? "nil")")
        }
    }
}
