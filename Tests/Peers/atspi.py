#!/usr/bin/python3
"""Reads and drives an application through the accessibility tree (AT-SPI),
as a screen reader or a test tool does: the tests' witness that every control
of the chooser can be found by name, and used without a pointer or keys.

    atspi.py APP tree            print every node as JSON: role, name, description, actions,
                                 and whether it is visible (not hidden: what a screen reader
                                 reads; GTK 4 marks only windows "showing") and focused
    atspi.py APP wait ROLE NAME  return once a node with that role and name exists (at most 20 s)
    atspi.py APP do ROLE NAME    perform the first action of the node with that role and name
    atspi.py APP do-described ROLE DESCRIPTION
                                 the same, for the node with that role and description
                                 (buttons of one name, "Use", told apart by what they do)
"""
import json, sys, time
import pyatspi

def application(name):
    # The application registers with the accessibility bus once GTK has started; wait for it.
    for _ in range(400):
        for app in pyatspi.Registry.getDesktop(0):
            if app is not None and app.name == name:
                return app
        time.sleep(0.025)
    sys.exit(f"atspi.py: no application named {name!r} on the accessibility bus")

def nodes(node):
    yield node
    try:
        children = [node.getChildAtIndex(index) for index in range(node.childCount)]
    except Exception:
        # A node that went away while being read (a page rebuilt, a closing popover).
        return
    for child in children:
        if child is not None:
            yield from nodes(child)

def described(n):
    try:
        state = n.getState()
        return {"role": n.getRoleName(), "name": n.name, "description": n.description, "actions": actions(n),
                "visible": state.contains(pyatspi.STATE_VISIBLE), "focused": state.contains(pyatspi.STATE_FOCUSED)}
    except Exception:
        return None  # gone while being read

def actions(node):
    try:
        action = node.queryAction()
        return [action.getName(i) for i in range(action.nActions)]
    except NotImplementedError:
        return []
    except Exception:
        # A node that went away while being read (a tooltip, a closing popover).
        return []

app = application(sys.argv[1])
if sys.argv[2] == "tree":
    print(json.dumps([d for d in (described(n) for n in nodes(app)) if d is not None]))
elif sys.argv[2] == "wait":
    role, name = sys.argv[3], sys.argv[4]
    # AT-SPI has events for this, but a window that appears between subscribing and polling is
    # missed; asking the tree again is the sure way, and each look costs a few round trips.
    for _ in range(800):
        if any(n.getRoleName() == role and n.name == name for n in nodes(app)):
            sys.exit(0)
        time.sleep(0.025)
    sys.exit(f"atspi.py: no {role} named {name!r} appeared")
elif sys.argv[2] in ("do", "do-described"):
    role, wanted = sys.argv[3], sys.argv[4]
    field = "name" if sys.argv[2] == "do" else "description"
    for node in nodes(app):
        if node.getRoleName() == role and getattr(node, field) == wanted:
            node.queryAction().doAction(0)
            sys.exit(0)
    sys.exit(f"atspi.py: no {role} with {field} {wanted!r}")
