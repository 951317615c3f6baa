extension SelfCheck {
    /// The database belongs to its folder's owner (the user the programs run as), and every file
    /// beside it to the database's owner (`StoreFiles`): one that another user made, root running
    /// this check or a cron line before the fix, is a file the programs cannot open or change, and
    /// then every request answers 500.
    static func ownerFindings(databasePath: String, serverKeyPath: String?) -> [Finding] {
        let folderPath = Files.directory(of: databasePath)
        guard let database = StoreFiles.owner(of: databasePath), let folder = StoreFiles.owner(of: folderPath) else {
            return []
        }
        func name(_ owner: StoreFiles.Owner) -> String { "\(userName(owner.uid)):\(groupName(owner.gid))" }
        var out: [Finding] = []
        if database.uid != folder.uid {
            out.append(Finding(
                ok: false,
                text: "database \(databasePath): owned by \(name(database)), its folder by \(name(folder)), the user "
                    + "the programs run as: chown \(name(folder)) \(databasePath)*"))
        }
        let companions = StoreFiles.companions(databasePath: databasePath, serverKeyPath: serverKeyPath)
        let strays = companions.compactMap { file -> String? in
            guard let owner = StoreFiles.owner(of: file.path), owner.uid != database.uid else { return nil }
            return "\(file.what) \(file.path) (\(name(owner)))"
        }
        if !strays.isEmpty {
            out.append(Finding(
                ok: false,
                text: "database files: owned by another user than the database's \(name(database)): "
                    + strays.joined(separator: ", ") + "; the programs cannot change them: chown \(name(database)) them"))
        }
        if out.isEmpty {
            let listed = (["the database"] + companions.map(\.what)).joined(separator: ", ")
            out.append(Finding(ok: true, text: "database files: \(listed) owned by \(name(database)), as their folder"))
        }
        return out
    }
}
