// The names the documentation's examples use without declaring them, as a reader's program would
// have them: imported implicitly by Scripts/doc-examples.py into every block it type-checks (a
// block's own declarations shadow these). Nothing here is run. Keep it to what the text treats as
// the reader's own: their session, their model types, their keys; never a name of the library.
import Requests
import RequestsTesting

// MARK: The reader's session and URLs

public let session = Session()
// A `URL`, which every call and `URLRequest(url:)` take.
public let url = URL(string: "https://api.example.com/items")!
public let rawURL = URL(fileURLWithPath: "/tmp/raw.bin")
public let destination = URL(fileURLWithPath: "/tmp/export.csv")
public let cachesFolder = FileManager.default.temporaryDirectory.appendingPathComponent("api-cache")
public let request = URLRequest(url: url)

// MARK: The reader's model types and values

public struct User: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String
    public init(id: Int, name: String) {
        self.id = id
        self.name = name
    }
}

public struct Repo: Codable, Sendable {
    public var name: String
}

/// A record of a newline-delimited JSON stream.
public struct Record: Codable, Sendable {
    public var id: Int
}

public struct Login: Codable, Sendable {
    public var user: String
    public var password: String
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}

public let value = User(id: 7, name: "Ada")
public let pngData = Data([0x89, 0x50, 0x4E, 0x47])
public let notes = "notes"
public let mySnakeCaseEncoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    return encoder
}()

// MARK: The reader's credentials

/// Where the reader's access tokens come from.
public struct Tokens: TokenProvider {
    public func token() async throws -> String { "token" }
    public func refreshToken(rejected: String) async throws -> String { "new token" }
}

public let tokens = Tokens()

/// The reader's request-signing keys.
public struct SigningKeys: Sendable {}

public let keys = SigningKeys()

extension OutgoingRequest {
    /// Signs the request with the reader's keys (their own code).
    public mutating func sign(with keys: SigningKeys) async throws {}
}

extension ServerEnvironment {
    /// The reader's production servers.
    public static let production = ServerEnvironment(host: "api.example.com")
}

// MARK: The reader's tests

public let stub = StubTransport()

/// The reader's API client, the code their tests exercise.
public struct APIClient: Sendable {
    public let session: Session
    public init(session: Session) {
        self.session = session
    }

    public func user(_ id: Int) async throws -> User {
        try await session.request("https://api.example.com/users/\(id)").validate().decode(User.self)
    }
}

// MARK: The reader's other code

/// Signs a `URLRequest` (a library of the reader's that wants Foundation's type).
public struct Signer: Sendable {
    public func sign(_ request: inout URLRequest) throws {}
}

public let signer = Signer()

/// The reader's signature of a body.
public func signature(of body: Data) -> String { "signature" }

/// Asks the reader's identity provider for a new access token.
public func fetchNewToken() async throws -> String { "new token" }

/// A ready-made POST request.
public let post: URLRequest = {
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    return request
}()

/// The reader's transport.
public struct MyTransport: Transport {
    public init() {}
    public func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
        throw TransportError(.other, detail: "not a real transport")
    }
}

/// The access token the reader's app saved last time.
public let savedToken = "token"
