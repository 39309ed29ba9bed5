// The Requests module executes the requests that ParameterEncoding builds. Its Session arrives
// with its own issue; for now it re-exports ParameterEncoding so `import Requests` is the one
// import users need.
@_exported import ParameterEncoding
