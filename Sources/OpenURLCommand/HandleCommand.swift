import DBus
import Dispatch
import DispatcherAPI
import Glibc
import Routing
import Spawn

/// `openurl handle ... -- COMMAND`: a handler that runs a command per URL.
struct HandleCommand {
    let environment: [String: String]
    let options: HandleOptions
    /// Shorter than the dispatcher's 5 s per handler, so that a slow command
    /// still gets a considered answer in.
    static let commandDeadline: Duration = .seconds(4)

    func run() async -> ExitStatus {
        guard let program = findExecutable(options.command[0], path: environment["PATH"]) else {
            Console.error("\(options.command[0]): command not found")
            return .usage
        }
        let connection: Connection
        do {
            connection = try await Connection.session(environment: environment)
        } catch {
            Console.error("cannot reach the session bus: \(error.message)")
            return .unreachable
        }
        defer { connection.close() }
        let host = HandlerHost(client: DispatcherClient(connection: connection))
        var spec = options.match
        if spec.name.isEmpty { spec.name = options.command.joined(separator: " ") }
        let (stops, stop) = AsyncStream.makeStream(of: String.self)
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.yield("signal") }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }
        connection.onDisconnect { _ in stop.yield("disconnected") }

        let path: ObjectPath
        do {
            path = try await host.add(spec) { url, context in await ask(program, url: url, context: context) }
        } catch {
            guard DispatcherClient.isUnreachable(error) else {
                Console.error("openurld refused the handler: \(error.message)")
                return .rejected
            }
            Console.error("cannot register the handler: \(DispatcherClient.unreachableReason(error))")
            return .unreachable
        }
        Console.error("handler \(host.id(of: path).map(String.init) ?? "?") registered for \(spec.schemes.joined(separator: ",")); stop with Ctrl-C")
        for await reason in stops {
            if reason == "disconnected" {
                Console.error("lost the session bus")
                return .unreachable
            }
            break
        }
        await host.remove(path)
        return .accepted
    }

    private func ask(_ program: String, url: String, context: HandlerHost.Context) async -> HandlerReply {
        var environment = self.environment
        environment["OPENURL_URL"] = url
        environment["OPENURL_CALLER"] = context.caller
        environment["OPENURL_CALLER_APP_ID"] = context.callerAppID
        let result: CapturedRun
        do {
            result = try await runCapturingOutput(
                program, arguments: options.command + [url], environment: environment.map { "\($0.key)=\($0.value)" },
                deadline: Self.commandDeadline)
        } catch {
            Console.error("\(error)")
            return .systemAction
        }
        if result.timedOut {
            Console.error("\(options.command[0]) took longer than 4 s for \(url); passing it on")
            return .systemAction
        }
        return Self.answer(output: result.output, status: result.status)
    }

    /// The first line decides; with no output, exit status 0 means handled.
    static func answer(output: [UInt8], status: Int32?) -> HandlerReply {
        let firstLine = String(decoding: output.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
            .trimmingCharacters(" \t\r")
        guard !firstLine.isEmpty else { return status == 0 ? .handled : .systemAction }
        if let reply = HandlerReply(word: firstLine) { return reply }
        let rewrite = HandlerReply.systemAction.word + " "
        if firstLine.hasPrefix(rewrite) {
            return .rewrite(String(firstLine.dropFirst(rewrite.count)).trimmingCharacters(" \t"))
        }
        Console.error("unknown answer '\(firstLine.prefix(80))'; passing the URL on")
        return .systemAction
    }
}

extension String {
    fileprivate func trimmingCharacters(_ set: String) -> String {
        var scalars = Substring(self)
        while let first = scalars.first, set.contains(first) { scalars = scalars.dropFirst() }
        while let last = scalars.last, set.contains(last) { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
