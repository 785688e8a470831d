import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// Privacy belongs to the real folder, whatever path reaches it: symlinks never publish a
/// private album or photo, and never hide the real album behind an alias.
@Suite struct SymlinkPrivacyTests {
    /// The test library plus a private "Family" (with "Family/2024" and a hidden "Family/.old")
    /// and symlinks that try to reach them from public places.
    static func library() throws -> TestLibrary {
        let library = try TestLibrary.make()
        let fm = FileManager.default
        let root = library.root
        for dir in ["Family/2024", "Family/.old"] { try fm.createDirectory(atPath: root + "/" + dir, withIntermediateDirectories: true) }
        try fm.copyItem(atPath: Fixtures.jpeg("flower_420_q75.jpg"), toPath: root + "/Family/Grandma.jpg")
        try fm.copyItem(atPath: Fixtures.jpeg("stream_420_q80.jpg"), toPath: root + "/Family/2024/Beach.jpg")
        try fm.copyItem(atPath: Fixtures.jpeg("statue_420_q75.jpg"), toPath: root + "/Family/.old/Attic.jpg")
        let manifest = ["albums": ["Family": ["private": true]]]
        try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: root + "/gallery.json"))
        // "Everyone" sorts before "Family": it used to be listed publicly and hide Family.
        try fm.createSymbolicLink(atPath: root + "/Everyone", withDestinationPath: "Family")
        try fm.createSymbolicLink(atPath: root + "/Kids", withDestinationPath: root + "/Family/2024")
        try fm.createSymbolicLink(atPath: root + "/Attic", withDestinationPath: "Family/.old")
        try fm.createSymbolicLink(atPath: root + "/Trips/Leak.jpg", withDestinationPath: "../Family/Grandma.jpg")
        try fm.createSymbolicLink(atPath: root + "/Family/Again.jpg", withDestinationPath: "Grandma.jpg")
        try fm.createSymbolicLink(atPath: root + "/Also Trips", withDestinationPath: "Trips")
        try fm.createSymbolicLink(atPath: root + "/Trips/Loop", withDestinationPath: "..")
        return library
    }

    @Test func symlinksNeverPublishAPrivateFolderNorHideTheRealOne() throws {
        let library = try Self.library()
        defer { library.remove() }
        let catalog = CatalogScanner(root: library.root, siteTitle: "T").scan().catalog
        let paths = Set(catalog.albums.values.map(\.relativePath))
        // The real albums are there, under their own paths.
        #expect(paths.isSuperset(of: ["Family", "Family/2024", "Trips"]))
        // Aliases of listed folders are skipped, whatever their privacy.
        #expect(paths.isDisjoint(with: ["Everyone", "Kids", "Also Trips", "Trips/Loop"]))
        let family = try #require(catalog.albums.values.first { $0.relativePath == "Family" })
        #expect(family.privateRoot == family.id)
        #expect(catalog.albums.values.first { $0.relativePath == "Family/2024" }?.privateRoot == family.id)
        // The alias of a hidden folder inside Family is listed, and private.
        let attic = try #require(catalog.albums.values.first { $0.relativePath == "Attic" })
        #expect(attic.privateRoot != nil)

        let publicView = catalog.publicView()
        let publicNames = Set(publicView.items.values.map(\.fileName))
        for name in ["Grandma.jpg", "Beach.jpg", "Attic.jpg", "Leak.jpg", "Again.jpg"] { #expect(!publicNames.contains(name)) }
        #expect(publicView.albums.values.allSatisfy { $0.privateRoot == nil })
        // A symlinked photo of a private folder stays inside that folder's albums only.
        let allNames = catalog.items.values.map(\.fileName)
        #expect(!allNames.contains("Leak.jpg"))
        #expect(catalog.items.values.first { $0.fileName == "Again.jpg" }?.albumID == family.id)
    }

    @Test func aSharedPrivateAlbumIsFoundByItsPathWhateverSymlinksPointAtIt() throws {
        let library = try Self.library()
        defer { library.remove() }
        let catalog = CatalogScanner(root: library.root, siteTitle: "T").scan().catalog
        let family = try #require(catalog.albums.values.first { $0.relativePath == "Family" })
        let view = try #require(catalog.sharedView(of: family.id, linkPrefix: "/s/x"))
        #expect(Set(view.items.values.map(\.fileName)) == ["Grandma.jpg", "Again.jpg", "Beach.jpg"])
    }

    @Test func privacyMarksCoverEveryFolderBelowThem() {
        let manifest = Manifest(albums: ["A/B": .init(private: true)])
        #expect(manifest.privateMark(of: "A") == nil)
        #expect(manifest.privateMark(of: "A/B") == "A/B")
        #expect(manifest.privateMark(of: "A/B/C/D") == "A/B")
        #expect(manifest.privateMark(of: "A/BC") == nil)
    }
}
