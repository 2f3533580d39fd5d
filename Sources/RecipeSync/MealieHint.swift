import Foundation
import MealieAPI
import Transport

/// A run with `server.kind http` (a recipes server) whose server.url names a Mealie stops as "not a recipes server":
/// true, but not what to do. One `GET /api/app/about` (Mealie's, which answers without a token) tells a Mealie 2.x
/// from anything else, and the words then say what to set. Asked only after the run stopped on a set-up mistake.
enum MealieHint {
    /// What to tell the person when the server at `baseURL` answers as a Mealie 2.x does; nil otherwise.
    static func words(baseURL: String, client: HTTPClient) async -> String? {
        guard let server = MealieServer(baseURL: baseURL), let response = try? await client.send(server.about()),
              case .success = MealieAnswer.about(response) else { return nil }
        return "server.url \(baseURL) is a Mealie (it answers GET /api/app/about as Mealie 2.x does), and server.kind is "
            + "http, a recipes server: set `recipes config set server.kind mealie`, and server.token to an API token "
            + "made in Mealie (your profile, API Tokens)"
    }
}
