// The pet store client the OpenAPI pages use, in the shape swift-openapi-generator gives a client
// (`Client`, `Servers`, `Components.Schemas`, `Operations.<id>.Input` and `.Output`), so that
// Scripts/doc-examples.py can type-check those pages' blocks without running the generator. Only
// the shape matters: nothing here is run, and the library's own generated client is tested in
// Tests/RequestsOpenAPITests.
import Foundation
import HTTPTypes
import OpenAPIRuntime

private struct NotRun: Error {}

enum Servers {
    enum Server1 {
        static func url() throws -> URL { try URL(validatingOpenAPIServerURL: "https://pets.example") }
    }
}

enum Components {
    enum Schemas {
        struct Pet: Codable, Hashable, Sendable {
            var id: Int64
            var name: String
            init(id: Int64, name: String) {
                self.id = id
                self.name = name
            }
        }

        struct Token: Codable, Hashable, Sendable {
            var token: String
        }

        struct Rejected: Codable, Hashable, Sendable {
            var rejected: String
            init(rejected: String) { self.rejected = rejected }
        }
    }
}

enum Operations {
    enum getPet {
        struct Input: Sendable {
            struct Path: Sendable {
                var petID: Int64
                init(petID: Int64) { self.petID = petID }
            }
        }

        enum Output: Sendable {
            struct Ok: Sendable {
                enum Body: Sendable {
                    case json(Components.Schemas.Pet)
                    var json: Components.Schemas.Pet { get throws { throw NotRun() } }
                }
                var body: Body
            }
            struct NotFound: Sendable {}

            case ok(Ok)
            case notFound(NotFound)
            case undocumented(statusCode: Int, UndocumentedPayload)

            var ok: Ok { get throws { throw NotRun() } }
        }
    }

    enum refreshToken {
        struct Input: Sendable {
            enum Body: Sendable {
                case json(Components.Schemas.Rejected)
            }
        }

        enum Output: Sendable {
            struct Ok: Sendable {
                enum Body: Sendable {
                    case json(Components.Schemas.Token)
                    var json: Components.Schemas.Token { get throws { throw NotRun() } }
                }
                var body: Body
            }

            case ok(Ok)
            case undocumented(statusCode: Int, UndocumentedPayload)

            var ok: Ok { get throws { throw NotRun() } }
        }
    }
}

struct Client: Sendable {
    let transport: any ClientTransport

    init(serverURL: URL, configuration: Configuration = .init(), transport: any ClientTransport,
         middlewares: [any ClientMiddleware] = []) {
        self.transport = transport
    }

    func getPet(path: Operations.getPet.Input.Path) async throws -> Operations.getPet.Output {
        throw NotRun()
    }

    func refreshToken(body: Operations.refreshToken.Input.Body) async throws -> Operations.refreshToken.Output {
        throw NotRun()
    }
}

