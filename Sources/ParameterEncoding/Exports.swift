// `import ParameterEncoding` is enough to build a `URLRequest` on every platform: the module
// re-exports Foundation, and on Linux FoundationNetworking, where `URLRequest` lives.
@_exported import Foundation
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
