/// What the command line tells a person whose token the server refused (`401`, or `403` from a recipes server): the
/// one place these words are written, for the sync's summary, cron's mail, the REPL and `recipes doctor`.
///
/// A token stops working when the server's owner rotates or removes the member it belongs to (docs/recipes-server.md,
/// "Households and members"), so the advice says so and names what gives a new one; it never shows the token.
enum CredentialsAdvice {
    /// The refusal itself, as the summary and the per-recipe lines say it.
    static let refused = "the server refused the credentials"

    /// What to do, for a server of `kind` (a recipes server's member token, or a Mealie API token).
    static func hint(_ kind: ServerKind = .http) -> String {
        switch kind {
        case .http:
            "this device's token was not accepted: if the server's owner rotated or removed it, ask them for this "
                + "device's new token (`recipes-server member token NAME` prints one); set it with "
                + "`recipes config set server.token -` (it reads the token from standard input) or RECIPES_TOKEN"
        case .mealie:
            "make an API token in Mealie (your profile, API Tokens) and set it with `recipes config set server.token -` "
                + "(it reads the token from standard input) or RECIPES_TOKEN"
        }
    }

    /// What to do when the server needs a token and none is set.
    static func missing(_ kind: ServerKind = .http) -> String {
        switch kind {
        case .http:
            "the server needs a token and server.token is not set: ask the server's owner for one for this device "
                + "(`recipes-server member add NAME --household H` prints it) and set it with "
                + "`recipes config set server.token -` (it reads the token from standard input) or RECIPES_TOKEN"
        case .mealie:
            "Mealie needs a token and server.token is not set: " + hint(.mealie)
        }
    }

    /// The summary's end for a run the server stopped: `stopped: the server refused the credentials (…)`.
    static func stopped(_ kind: ServerKind = .http) -> String {
        "stopped: " + refused + " (" + hint(kind) + ")"
    }

    /// The stderr line of a background run the server refused (what cron mails).
    static func backgroundLine(_ kind: ServerKind = .http) -> String {
        "recipes: sync: " + refused + "; " + hint(kind) + "\n"
    }
}
