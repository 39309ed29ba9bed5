// `import Requests` is the one import a program needs: the module re-exports the encoders
// (ParameterEncoding), Foundation, and on Linux FoundationNetworking, where `URLRequest` and
// `URLSession` live, as Alamofire does; so `UUID()`, `URLRequest(url:)` and `Data` are in scope
// with it on every platform.
@_exported import Foundation
@_exported import ParameterEncoding
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
