// `import RequestsOpenAPI` is the one import a program needs: the module re-exports Requests (and with it
// the encoders, Foundation and, on Linux, FoundationNetworking).
@_exported import Requests
