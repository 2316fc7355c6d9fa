import ScheddDesktop
import ScheddSystem
import Scheduler

/// The daemon's own members of `Status` (`Service`'s `statusMembers`): version, database, notifier, bus,
/// fold threshold; read at each `Status` call.
struct StatusMembers {
    let options: DaemonOptions
    let desktop: DesktopNotifier?
    /// The notifier chosen and why (`Daemon.notifierChoice`).
    let notifierChoice: String
    let engine: () -> Engine

    func members() -> [JSONMember] {
        let path = options.databasePath
        let size = ((try? FileSystem.status(path).size) ?? 0) + ((try? FileSystem.status(path + "-wal").size) ?? 0)
        var notifier: [JSONMember] = [JSONMember("kind", .string(notifierKindName))]
        if let desktop {
            var server: [JSONMember] = [JSONMember("present", .bool(desktop.serverPresent))]
            if let name = desktop.serverName { server.append(JSONMember("busName", .string(name))) }
            if let info = desktop.serverInformation, info.count == 4 {
                server += [JSONMember("name", .string(info[0])), JSONMember("vendor", .string(info[1])),
                           JSONMember("version", .string(info[2])), JSONMember("specVersion", .string(info[3]))]
            }
            if let caps = desktop.capabilities { server.append(JSONMember("capabilities", .array(caps.sorted().map(JSONValue.string)))) }
            notifier.append(JSONMember("server", .object(server)))
        }
        return [
            JSONMember("version", .string(scheddVersion)),
            JSONMember("database", .object([JSONMember("path", .string(path)), JSONMember("bytes", .number(String(size)))])),
            JSONMember("notifier", .object(notifier)),
            JSONMember("bus", .string(options.bus.description)),
            JSONMember("foldThreshold", .number(String(engine().foldThreshold))),
        ]
    }

    /// `desktop`, `stdout` or `none`, as chosen.
    var notifierKindName: String {
        if desktop != nil { return "desktop" }
        return options.notifier?.rawValue ?? (notifierChoice.contains("stdout") ? "stdout" : "none")
    }
}
