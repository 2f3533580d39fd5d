import RecipeSync

/// What kind of server `server.url` names (`server.kind`, environment `RECIPES_SERVER_KIND`): the destination kinds
/// of docs/http-api.md and docs/mealie.md.
public enum ServerKind: String, CaseIterable, Sendable {
    /// A server of the HTTP contract (`recipes-server`): the default.
    case http
    /// A Mealie 2.x: its REST API at `server.url`, an API token of Mealie's in `server.token`.
    case mealie

    /// What the kind means, for `config show`, `--help` and the message that lists the kinds.
    var summary: String {
        switch self {
        case .http: "a recipes server of the HTTP contract, the default"
        case .mealie: "a Mealie 2.x server, with a Mealie API token"
        }
    }

    /// The kind of `destination`, the sync layer's name for it.
    init(_ destination: DestinationKind) {
        switch destination {
        case .http: self = .http
        case .mealie: self = .mealie
        }
    }

    /// The kind `text` names (any case, blanks around it allowed), or a message listing the kinds.
    static func named(_ text: String) throws(CommandLineError) -> ServerKind {
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard let kind = ServerKind(rawValue: name) else {
            let kinds = allCases.map { "\($0.rawValue) (\($0.summary))" }.joined(separator: ", ")
            throw CommandLineError("server.kind \"\(TerminalText.clean(text))\" is not a kind of server; the kinds are: \(kinds); "
                + "set it with `recipes config set server.kind KIND` (or RECIPES_SERVER_KIND)")
        }
        return kind
    }
}
