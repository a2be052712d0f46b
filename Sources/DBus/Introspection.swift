import SafeText
/// Generates introspection XML from exported interface descriptions.
enum Introspection {
    static let header = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
        "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">

        """

    /// The standard interfaces every exported object answers.
    static let standard = """
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg name="xml_data" type="s" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId">
              <arg name="machine_uuid" type="s" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="out"/>
            </method>
            <method name="GetAll">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="properties" type="a{sv}" direction="out"/>
            </method>
            <method name="Set">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg name="interface_name" type="s"/>
              <arg name="changed_properties" type="a{sv}"/>
              <arg name="invalidated_properties" type="as"/>
            </signal>
          </interface>

        """

    static func xml(for interfaces: [ExportedInterface], children: [String]) -> String {
        var xml = header + "<node>\n"
        if !interfaces.isEmpty { xml += standard }
        for interface in interfaces { xml += describe(interface) }
        for child in children { xml += "  <node name=\"\(xmlEscaped(child))\"/>\n" }
        return xml + "</node>\n"
    }

    /// The XML for one interface, as it appears inside `<node>`.
    static func describe(_ interface: ExportedInterface) -> String {
        var xml = "  <interface name=\"\(interface.name)\">\n"
        for method in interface.methods {
            let args =
                method.arguments.map { argument($0, direction: "in") }
                + method.results.map { argument($0, direction: "out") }
            xml += element("method", name: method.name.rawValue, children: args)
        }
        for signal in interface.signals {
            xml += element("signal", name: signal.name.rawValue, children: signal.arguments.map { argument($0, direction: nil) })
        }
        for property in interface.properties {
            let head = "    <property name=\"\(property.name)\" type=\"\(property.type)\" access=\"read\""
            if property.isConstant {
                xml += head + ">\n"
                xml += "      <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"const\"/>\n"
                xml += "    </property>\n"
            } else {
                xml += head + "/>\n"
            }
        }
        return xml + "  </interface>\n"
    }

    private static func element(_ kind: String, name: String, children: [String]) -> String {
        if children.isEmpty { return "    <\(kind) name=\"\(name)\"/>\n" }
        return "    <\(kind) name=\"\(name)\">\n" + children.joined() + "    </\(kind)>\n"
    }

    private static func argument(_ argument: Argument, direction: String?) -> String {
        let direction = direction.map { " direction=\"\($0)\"" } ?? ""
        return "      <arg name=\"\(xmlEscaped(argument.name))\" type=\"\(argument.type)\"\(direction)/>\n"
    }

    /// The names of the nodes directly below `path` that lead to exported objects.
    static func children(of path: ObjectPath, among paths: some Sequence<ObjectPath>) -> [String] {
        let depth = path.elements.count
        var names = Set<String>()
        for candidate in paths {
            let elements = candidate.elements
            guard elements.count > depth, Array(elements.prefix(depth)) == path.elements else { continue }
            names.insert(String(elements[depth]))
        }
        return names.sorted()
    }
}
