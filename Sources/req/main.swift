import Foundation

// req: an httpie-style command line on swift-requests. See `req --help`.
exit(await Req.run(Array(CommandLine.arguments.dropFirst())))
