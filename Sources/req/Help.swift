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

        A body piped or redirected into req (echo '{"a":1}' | req :8080/x) is sent as it is,
        labelled JSON unless --form or a Content-Type item says otherwise; items that add body
        data cannot be given beside it. A terminal or /dev/null is never read; -I skips a pipe.

        items:
          name==value     query parameter
          Header:value    request header (Header: sends it empty)
          name=value      string field
          name:=json      raw JSON field: number, bool, null, array, object, sent as typed
          field@path      file upload (the request becomes multipart)
          name=@path      string field read from a file
          name:=@path     raw JSON field read from a file
          Nested names: user[name]=x, tags[]=a. Escape a separator in a name with \\ (a\\=b=c).
          A name given twice keeps both values: a=1 a=2 is a=1&a=2, or {"a":["1","2"]} in JSON.

        options:

        """
        for spec in Options.table {
            let names = spec.names.joined(separator: ", ") + (spec.value.map { " " + $0 } ?? "")
            text += "  " + names.padding(toLength: 34, withPad: " ", startingAt: 0) + " " + spec.help + "\n"
        }
        text += """

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

        exit status: 0 on success, 1 on an error, 2 on a usage error; with --check-status,
        3, 4 or 5 for a 3xx, 4xx or 5xx response.

        """
        return text
    }
}
