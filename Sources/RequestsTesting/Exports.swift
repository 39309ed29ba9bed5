// `import RequestsTesting` is the one import a test needs: the module re-exports Requests (and
// with it the encoders, Foundation and, on Linux, FoundationNetworking).
@_exported import Requests
