/* The floors of bench/run on sd-bus (systemd's D-Bus library): busbench's
 * server and relay, the same messages, on the other C library a program can
 * talk D-Bus with. For the same work it runs about a third of libdbus's
 * instructions (bench/README.md gives the counts), so a floor on libdbus
 * alone would flatter any program built on libdbus, openurld among them:
 * bench/run measures both and holds each target against the faster.
 *
 *   sdbench server ADDRESS NAME
 *       own NAME; answer org.bench.Echo.Ping(s) -> (b) with true, and
 *       org.openurld.Dispatcher1.OpenURL(s) (at any path) with false, having
 *       read the URL
 *   sdbench relay ADDRESS NAME HANDLER
 *       own NAME; for each org.openurld.Dispatcher1.OpenURL(s URL), call
 *       org.openurld.Handler1.HandleURL(s URL, a{sv} context) at /h0 on the
 *       connection owning HANDLER, with the context openurld sends (caller,
 *       caller-app-id, original-url), and answer (b) when it does. One
 *       thread, one filter for every message: calls are sent with their
 *       cookie remembered (no reply slots, no timeouts) and replies are
 *       matched to the call they answer by that cookie.
 *
 * Both print "ready" on stdout once they serve, and run until killed.
 */
#include <systemd/sd-bus.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sd_bus *connect_bus(const char *address) {
    sd_bus *bus = NULL;
    int r = sd_bus_new(&bus);
    if (r >= 0) r = sd_bus_set_address(bus, address);
    if (r >= 0) r = sd_bus_set_bus_client(bus, 1);
    if (r >= 0) r = sd_bus_start(bus);
    if (r < 0) {
        fprintf(stderr, "sdbench: cannot connect to %s: %s\n", address, strerror(-r));
        exit(1);
    }
    return bus;
}

static void own(sd_bus *bus, const char *name) {
    int r = sd_bus_request_name(bus, name, 0);
    if (r < 0) {
        fprintf(stderr, "sdbench: cannot own %s: %s\n", name, strerror(-r));
        exit(1);
    }
}

static void ready(void) {
    printf("ready\n");
    fflush(stdout);
}

/* Handles every message as it comes (each sd_bus_process handles one) and
 * waits when none is left. */
static int serve_forever(sd_bus *bus) {
    for (;;) {
        int r = sd_bus_process(bus, NULL);
        if (r < 0) return 1;
        if (r > 0) continue;
        if (sd_bus_wait(bus, UINT64_MAX) < 0) return 1;
    }
}

/* ---- server ---- */

static int serve(sd_bus_message *message, void *data, sd_bus_error *error) {
    (void)data;
    (void)error;
    const char *text = "";
    if (sd_bus_message_is_method_call(message, "org.openurld.Dispatcher1", "OpenURL")) {
        /* openurld's own message, refused: the URL read, false answered */
        sd_bus_message_read_basic(message, 's', &text);
        sd_bus_reply_method_return(message, "b", 0);
        return 1;
    }
    if (sd_bus_message_is_method_call(message, "org.bench.Echo", "Ping")) {
        sd_bus_message_read_basic(message, 's', &text);
        sd_bus_reply_method_return(message, "b", 1);
        return 1;
    }
    return 0;
}

/* ---- relay ---- */

#define RELAY_SLOTS 4096  /* calls in flight, by cookie; 16 clients need 16 */
static struct { uint64_t cookie; sd_bus_message *original; } relay_slots[RELAY_SLOTS];
static char *handler;  /* the handler's unique name: openurld calls handlers by it */

static int relay(sd_bus_message *message, void *data, sd_bus_error *error) {
    (void)error;
    sd_bus *bus = data;
    uint8_t type = 0;
    sd_bus_message_get_type(message, &type);
    if (type == SD_BUS_MESSAGE_METHOD_CALL && sd_bus_message_is_method_call(message, "org.openurld.Dispatcher1", "OpenURL")) {
        const char *url = "", *caller = sd_bus_message_get_sender(message);
        sd_bus_message_read_basic(message, 's', &url);
        sd_bus_message *call = NULL;
        if (sd_bus_message_new_method_call(bus, &call, handler, "/h0", "org.openurld.Handler1", "HandleURL") < 0) return 1;
        uint64_t cookie = 0;
        if (sd_bus_message_append(call, "sa{sv}", url, 3, "caller", "s", caller ? caller : "", "caller-app-id", "s", "",
                                  "original-url", "s", url) >= 0
            && sd_bus_send(bus, call, &cookie) >= 0) {
            relay_slots[cookie % RELAY_SLOTS].cookie = cookie;
            relay_slots[cookie % RELAY_SLOTS].original = sd_bus_message_ref(message);
        }
        sd_bus_message_unref(call);
        return 1;
    }
    if (type == SD_BUS_MESSAGE_METHOD_RETURN || type == SD_BUS_MESSAGE_METHOD_ERROR) {
        uint64_t cookie = 0;
        if (sd_bus_message_get_reply_cookie(message, &cookie) < 0) return 0;
        sd_bus_message *original = relay_slots[cookie % RELAY_SLOTS].original;
        if (relay_slots[cookie % RELAY_SLOTS].cookie != cookie || !original) return 0;
        relay_slots[cookie % RELAY_SLOTS].original = NULL;
        const char *result = "";
        int handled = type == SD_BUS_MESSAGE_METHOD_RETURN && sd_bus_message_read_basic(message, 's', &result) > 0
            && strcmp(result, "handled") == 0;
        sd_bus_reply_method_return(original, "b", handled);
        sd_bus_message_unref(original);
        return 1;
    }
    return 0;
}

static char *unique_name_of(sd_bus *bus, const char *name) {
    sd_bus_message *reply = NULL;
    const char *unique = NULL;
    if (sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                           NULL, &reply, "s", name) < 0
        || sd_bus_message_read(reply, "s", &unique) < 0) {
        fprintf(stderr, "sdbench: nobody owns %s\n", name);
        exit(1);
    }
    char *copy = strdup(unique);
    sd_bus_message_unref(reply);
    return copy;
}

int main(int argc, char **argv) {
    if (argc >= 4 && strcmp(argv[1], "server") == 0) {
        sd_bus *bus = connect_bus(argv[2]);
        sd_bus_add_filter(bus, NULL, serve, NULL);
        own(bus, argv[3]);
        ready();
        return serve_forever(bus);
    }
    if (argc >= 5 && strcmp(argv[1], "relay") == 0) {
        sd_bus *bus = connect_bus(argv[2]);
        own(bus, argv[3]);
        handler = unique_name_of(bus, argv[4]);
        sd_bus_add_filter(bus, NULL, relay, bus);
        ready();
        return serve_forever(bus);
    }
    fprintf(stderr, "usage: see the comment at the top of sdbench.c\n");
    return 2;
}
