import Foundation

// MARK: - Version

enum Version {
    static let current = "0.2.0"
}

// MARK: - Help

enum Help {
    static var text: String {
        var text = """
        req \(Version.current): an httpie-style HTTP client on swift-requests

        usage: req [METHOD] URL [ITEM ...] [OPTIONS]

        METHOD defaults to GET, or POST when there is body data. URL may leave out the scheme
        (http:// is assumed) and the host (:8080/path is localhost:8080/path).

        A body piped or redirected into req (echo '{"a":1}' | req :8080/x), --raw TEXT or @path is
        sent as it is, labelled JSON unless --form, a known file extension or a Content-Type item
        says otherwise; items that add body data cannot be given beside it. A terminal or
        /dev/null is never read; -I skips a pipe.

        items:
          name==value     query parameter
          Header:value    request header; Header: removes a default one
          Header;         request header sent empty
          name=value      string field
          name:=json      raw JSON field: number, bool, null, array, object, sent as typed
          field@path      file upload with --form or --multipart (field@path;type=MIME)
          name=@path      string field read from a file
          name:=@path     raw JSON field read from a file
          @path           the file is the whole body
          Nested JSON as httpie's: user[name]=x, tags[]=a (append), a[0]=x (index), []:=1 (a
          top-level array). Escape a separator in a name with \\ (a\\=b=c), a bracket with \\[.
          A name given twice keeps both values: a=1 a=2 is a=1&a=2, or {"a":["1","2"]} in JSON.

        options:

        """
        for spec in Options.table {
            let names = spec.names.joined(separator: ", ") + (spec.value.map { " " + $0 } ?? "")
            // A long spelling gets its own line rather than being cut.
            let column = names.count < 34 ? names.padding(toLength: 34, withPad: " ", startingAt: 0)
                : names + "\n" + String(repeating: " ", count: 36)
            text += "  " + column + " " + spec.help + "\n"
        }
        text += """
          (*) over AsyncHTTPClient, when req is built with the AsyncHTTPClient trait:
              swift build --traits AsyncHTTPClient --product req (\(Self.engine) here)

        examples:
          req example.org/search q==swift page==2
          req POST :8080/users name=Arthur age:=42 tags[]=admin user[email]=a@example.org
          echo '{"name":"Arthur"}' | req :8080/users
          req -o slides.json :8080/json
          req --form POST :8080/upload title=Holiday photo@beach.jpg
          req --offline --form PUT example.org/items id:=7 done:=true --bools literal
          req -d example.org/archive.zip
          req -S :8080/events Accept:text/event-stream
          req --session=me :8080/login user=arthur password=@secret.txt

        exit status (httpie's numbers):
          0  a response arrived (whatever its status, without --check-status)
          1  an error: no connection, a refused request, a failed download, or a usage error
          2  a timeout (--timeout)
          3, 4, 5  with --check-status: a 3xx (not followed), 4xx or 5xx response
          6  more redirects than --max-redirects

        coming from httpie (http):
          http -v, -h, -b, -p, --all, --pretty, --style, --offline    same in req
          http --help                  req --help (-h is --headers, as in httpie)
          http -F / --follow           same; --max-redirects 30 by default, as httpie
          http -a user:pass            same; -A bearer -a TOKEN, or --bearer TOKEN
          http --sorted (default)      req keeps JSON keys in order; --sorted sorts them
          http a=1 a=2 (last wins)     req sends both: {"a":["1","2"]}
          http URL < /dev/null         req never reads /dev/null or a terminal as the body
          http --verify, --cert        same with the AsyncHTTPClient trait (*); refused without it
          http --download > file       same; with /dev/null as output req saves a file
          http --form / --multipart    same; req also has --plist, --query, --arrays, --bools
          req adds: --stream for events, --retry N, --session keeps --auth, -o with any output

        """
        return text
    }

    /// The engine this build of req sends through.
    static var engine: String {
        #if AsyncHTTPClient
        "AsyncHTTPClient"
        #else
        "URLSession"
        #endif
    }
}
