/* The floors and helpers of the benchmark suite, in plain C on libdbus.
 *
 *   busbench server ADDRESS NAME
 *       own NAME; answer org.bench.Echo.Ping(s) -> (b) with true, and
 *       org.openurld.Dispatcher1.OpenURL(s) (at any path) with false, having
 *       read the URL: the floor of a refusal, with openurld's own messages
 *   busbench forwarder ADDRESS NAME TARGET
 *       own NAME; forward each Ping to TARGET asynchronously, reply when TARGET does
 *   busbench relay ADDRESS NAME HANDLER
 *       own NAME; for each org.openurld.Dispatcher1.OpenURL(s URL), call
 *       org.openurld.Handler1.HandleURL(s URL, a{sv} context) at /h0 on the
 *       connection owning HANDLER, with the context openurld sends (caller,
 *       caller-app-id, original-url), and answer (b) when it does: openurld's
 *       forwarding with the same messages and none of its work, in one thread
 *       that reads every message waiting, answers what it can, and writes
 *       once per wake-up (no pending-call objects, no dispatch, no timers)
 *   busbench handlers ADDRESS PASSING [NAME]
 *       register PASSING+1 handlers with openurld for https://bench.example;
 *       the lowest-priority one answers "handled", the others "systemAction";
 *       own NAME too, if given (for the relay to find them)
 *   busbench filler ADDRESS COUNT
 *       register COUNT handlers on other schemes and hosts (never matching)
 *   busbench spawner ADDRESS NAME PROGRAM [ARG...]
 *       own NAME; for each org.openurld.Dispatcher1.OpenURL(s URL), posix_spawn
 *       PROGRAM ARG... URL (its own session, this environment) and reply true:
 *       the least work a dispatcher on the bus can do to launch an app
 *   busbench record FILE URL
 *       the "browser" of the launch benchmarks: append "NANOSECONDS URL" to FILE
 *       (CLOCK_REALTIME), so the driver knows when the URL arrived
 *   busbench client ADDRESS DEST PATH INTERFACE METHOD ARG COUNT
 *       COUNT sequential calls with one string argument; prints
 *       "calls p50_us p99_us seconds"
 *
 * Servers print "ready" on stdout once they serve, and run until killed.
 */
#define _GNU_SOURCE  /* POSIX_SPAWN_SETSID */
#include <dbus/dbus.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static DBusConnection *connect_bus(const char *address) {
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *connection = dbus_connection_open_private(address, &error);
    if (!connection || !dbus_bus_register(connection, &error)) {
        fprintf(stderr, "busbench: %s\n", error.message ? error.message : "cannot connect");
        exit(1);
    }
    dbus_connection_set_exit_on_disconnect(connection, TRUE);
    return connection;
}

static void own(DBusConnection *connection, const char *name) {
    DBusError error;
    dbus_error_init(&error);
    if (dbus_bus_request_name(connection, name, DBUS_NAME_FLAG_DO_NOT_QUEUE, &error) != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
        fprintf(stderr, "busbench: cannot own %s\n", name);
        exit(1);
    }
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void ready(void) {
    printf("ready\n");
    fflush(stdout);
}

/* ---- server ---- */

static DBusHandlerResult serve_ping(DBusConnection *connection, DBusMessage *message, void *data) {
    (void)data;
    dbus_bool_t yes = TRUE;
    if (dbus_message_is_method_call(message, "org.openurld.Dispatcher1", "OpenURL")) {
        /* openurld's own message, refused: the URL read, false answered */
        const char *url = "";
        dbus_message_get_args(message, NULL, DBUS_TYPE_STRING, &url, DBUS_TYPE_INVALID);
        yes = FALSE;
    } else if (!dbus_message_is_method_call(message, "org.bench.Echo", "Ping")) {
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    }
    DBusMessage *reply = dbus_message_new_method_return(message);
    dbus_message_append_args(reply, DBUS_TYPE_BOOLEAN, &yes, DBUS_TYPE_INVALID);
    dbus_connection_send(connection, reply, NULL);
    dbus_message_unref(reply);
    return DBUS_HANDLER_RESULT_HANDLED;
}

/* ---- forwarder ---- */

static const char *forward_target;
static dbus_int32_t connection_slot = -1;  /* where a pending call keeps its connection */

static void forwarded(DBusPendingCall *pending, void *data) {
    DBusMessage *original = data;
    DBusMessage *answer = dbus_pending_call_steal_reply(pending);
    DBusMessage *reply = dbus_message_new_method_return(original);
    dbus_bool_t yes = answer && dbus_message_get_type(answer) == DBUS_MESSAGE_TYPE_METHOD_RETURN;
    dbus_message_append_args(reply, DBUS_TYPE_BOOLEAN, &yes, DBUS_TYPE_INVALID);
    dbus_connection_send((DBusConnection *)dbus_pending_call_get_data(pending, connection_slot), reply, NULL);
    dbus_message_unref(reply);
    if (answer) dbus_message_unref(answer);
    dbus_pending_call_unref(pending);
}

static DBusHandlerResult forward_ping(DBusConnection *connection, DBusMessage *message, void *data) {
    (void)data;
    if (!dbus_message_is_method_call(message, "org.bench.Echo", "Ping")) return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    const char *text = "";
    dbus_message_get_args(message, NULL, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID);
    DBusMessage *call = dbus_message_new_method_call(forward_target, "/bench", "org.bench.Echo", "Ping");
    dbus_message_append_args(call, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID);
    DBusPendingCall *pending = NULL;
    dbus_connection_send_with_reply(connection, call, &pending, 5000);
    dbus_message_unref(call);
    dbus_pending_call_set_data(pending, connection_slot, connection, NULL);
    dbus_message_ref(message);
    dbus_pending_call_set_notify(pending, forwarded, message, (DBusFreeFunction)dbus_message_unref);
    return DBUS_HANDLER_RESULT_HANDLED;
}

static void append_entry(DBusMessageIter *dict, const char *key, int type, const char *signature, void *value, int is_array);

/* ---- relay: the fastest forwarder on libdbus this file knows ---- */

#define RELAY_SLOTS 4096  /* calls in flight, by serial; 16 clients need 16 */
static struct { dbus_uint32_t serial; DBusMessage *original; } relay_slots[RELAY_SLOTS];

static void append_string_entry(DBusMessageIter *dict, const char *key, const char *value) {
    append_entry(dict, key, DBUS_TYPE_STRING, "s", &value, 0);
}

static int relay(const char *address, const char *name, const char *handler_name) {
    DBusConnection *connection = connect_bus(address);
    own(connection, name);
    /* The handler's unique name, once: openurld calls handlers by it. */
    DBusMessage *query = dbus_message_new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner");
    dbus_message_append_args(query, DBUS_TYPE_STRING, &handler_name, DBUS_TYPE_INVALID);
    DBusMessage *owner = dbus_connection_send_with_reply_and_block(connection, query, 5000, NULL);
    const char *unique = NULL;
    if (!owner || !dbus_message_get_args(owner, NULL, DBUS_TYPE_STRING, &unique, DBUS_TYPE_INVALID)) {
        fprintf(stderr, "busbench: nobody owns %s\n", handler_name);
        return 1;
    }
    char *handler = strdup(unique);
    dbus_message_unref(owner);
    dbus_message_unref(query);
    ready();
    while (dbus_connection_read_write(connection, -1)) {
        DBusMessage *message;
        while ((message = dbus_connection_pop_message(connection))) {
            int type = dbus_message_get_type(message);
            if (type == DBUS_MESSAGE_TYPE_METHOD_CALL && dbus_message_is_method_call(message, "org.openurld.Dispatcher1", "OpenURL")) {
                const char *url = "", *empty = "";
                const char *caller = dbus_message_get_sender(message);
                dbus_message_get_args(message, NULL, DBUS_TYPE_STRING, &url, DBUS_TYPE_INVALID);
                DBusMessage *call = dbus_message_new_method_call(handler, "/h0", "org.openurld.Handler1", "HandleURL");
                DBusMessageIter args, dict;
                dbus_message_iter_init_append(call, &args);
                dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &url);
                dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &dict);
                append_string_entry(&dict, "caller", caller ? caller : empty);
                append_string_entry(&dict, "caller-app-id", empty);
                append_string_entry(&dict, "original-url", url);
                dbus_message_iter_close_container(&args, &dict);
                dbus_uint32_t serial = 0;
                dbus_connection_send(connection, call, &serial);
                dbus_message_unref(call);
                relay_slots[serial % RELAY_SLOTS].serial = serial;
                relay_slots[serial % RELAY_SLOTS].original = message;  /* keeps the reference */
                continue;
            }
            if (type == DBUS_MESSAGE_TYPE_METHOD_RETURN || type == DBUS_MESSAGE_TYPE_ERROR) {
                dbus_uint32_t serial = dbus_message_get_reply_serial(message);
                if (relay_slots[serial % RELAY_SLOTS].serial == serial && relay_slots[serial % RELAY_SLOTS].original) {
                    DBusMessage *original = relay_slots[serial % RELAY_SLOTS].original;
                    relay_slots[serial % RELAY_SLOTS].original = NULL;
                    const char *result = "";
                    dbus_bool_t handled = type == DBUS_MESSAGE_TYPE_METHOD_RETURN
                        && dbus_message_get_args(message, NULL, DBUS_TYPE_STRING, &result, DBUS_TYPE_INVALID)
                        && strcmp(result, "handled") == 0;
                    DBusMessage *reply = dbus_message_new_method_return(original);
                    dbus_message_append_args(reply, DBUS_TYPE_BOOLEAN, &handled, DBUS_TYPE_INVALID);
                    dbus_connection_send(connection, reply, NULL);
                    dbus_message_unref(reply);
                    dbus_message_unref(original);
                }
            }
            dbus_message_unref(message);
        }
    }
    return 0;
}

/* ---- spawner ---- */

extern char **environ;
static char **spawn_argv;  /* PROGRAM ARG... then the URL, then NULL */
static int spawn_argc;

static DBusHandlerResult spawn_url(DBusConnection *connection, DBusMessage *message, void *data) {
    (void)data;
    if (!dbus_message_is_method_call(message, "org.openurld.Dispatcher1", "OpenURL")) return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    const char *url = "";
    dbus_message_get_args(message, NULL, DBUS_TYPE_STRING, &url, DBUS_TYPE_INVALID);
    spawn_argv[spawn_argc] = (char *)url;
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID);
    pid_t pid;
    dbus_bool_t spawned = posix_spawn(&pid, spawn_argv[0], NULL, &attributes, spawn_argv, environ) == 0;
    posix_spawnattr_destroy(&attributes);
    DBusMessage *reply = dbus_message_new_method_return(message);
    dbus_message_append_args(reply, DBUS_TYPE_BOOLEAN, &spawned, DBUS_TYPE_INVALID);
    dbus_connection_send(connection, reply, NULL);
    dbus_message_unref(reply);
    return DBUS_HANDLER_RESULT_HANDLED;
}

/* ---- openurld handlers ---- */

static DBusHandlerResult handle_url(DBusConnection *connection, DBusMessage *message, void *data) {
    (void)data;
    if (!dbus_message_is_method_call(message, "org.openurld.Handler1", "HandleURL")) return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    const char *path = dbus_message_get_path(message);
    const char *result = strcmp(path, "/h0") == 0 ? "handled" : "systemAction";
    const char *empty = "";
    DBusMessage *reply = dbus_message_new_method_return(message);
    dbus_message_append_args(reply, DBUS_TYPE_STRING, &result, DBUS_TYPE_STRING, &empty, DBUS_TYPE_INVALID);
    dbus_connection_send(connection, reply, NULL);
    dbus_message_unref(reply);
    return DBUS_HANDLER_RESULT_HANDLED;
}

static void append_entry(DBusMessageIter *dict, const char *key, int type, const char *signature, void *value, int is_array) {
    DBusMessageIter entry, variant, array;
    dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, signature, &variant);
    if (is_array) {
        dbus_message_iter_open_container(&variant, DBUS_TYPE_ARRAY, "s", &array);
        dbus_message_iter_append_basic(&array, DBUS_TYPE_STRING, value);
        dbus_message_iter_close_container(&variant, &array);
    } else {
        dbus_message_iter_append_basic(&variant, type, value);
    }
    dbus_message_iter_close_container(&entry, &variant);
    dbus_message_iter_close_container(dict, &entry);
}

static void register_handler(DBusConnection *connection, const char *path, const char *scheme, const char *host, int priority) {
    DBusMessage *call = dbus_message_new_method_call(
        "org.openurld.Dispatcher1", "/org/openurld/Dispatcher1", "org.openurld.Dispatcher1", "RegisterHandler");
    DBusMessageIter args, dict;
    dbus_message_iter_init_append(call, &args);
    dbus_message_iter_append_basic(&args, DBUS_TYPE_OBJECT_PATH, &path);
    dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &dict);
    append_entry(&dict, "schemes", 0, "as", &scheme, 1);
    append_entry(&dict, "hosts", 0, "as", &host, 1);
    dbus_int32_t p = priority;
    append_entry(&dict, "priority", DBUS_TYPE_INT32, "i", &p, 0);
    dbus_message_iter_close_container(&args, &dict);
    DBusError error;
    dbus_error_init(&error);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(connection, call, 5000, &error);
    if (!reply) {
        fprintf(stderr, "busbench: RegisterHandler: %s\n", error.message);
        exit(1);
    }
    dbus_message_unref(reply);
    dbus_message_unref(call);
}

/* ---- client ---- */

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int client(const char *address, const char *dest, const char *path, const char *iface, const char *method,
                  const char *arg, long count) {
    DBusConnection *connection = connect_bus(address);
    double *latencies = malloc(sizeof(double) * count);
    double start = now();
    for (long i = 0; i < count; i++) {
        DBusMessage *call = dbus_message_new_method_call(dest, path, iface, method);
        dbus_message_append_args(call, DBUS_TYPE_STRING, &arg, DBUS_TYPE_INVALID);
        DBusError error;
        dbus_error_init(&error);
        double before = now();
        DBusMessage *reply = dbus_connection_send_with_reply_and_block(connection, call, 30000, &error);
        latencies[i] = now() - before;
        if (!reply) {
            fprintf(stderr, "busbench: %s\n", error.message);
            return 1;
        }
        dbus_message_unref(reply);
        dbus_message_unref(call);
    }
    double elapsed = now() - start;
    qsort(latencies, count, sizeof(double), compare);
    printf("%ld %.2f %.2f %.6f\n", count, latencies[count / 2] * 1e6, latencies[(long)(count * 0.99)] * 1e6, elapsed);
    return 0;
}

static int record(const char *file, const char *url) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    FILE *out = fopen(file, "a");
    if (!out) return 1;
    fprintf(out, "%lld %s\n", (long long)t.tv_sec * 1000000000LL + t.tv_nsec, url);
    return fclose(out) == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc >= 4 && strcmp(argv[1], "record") == 0) return record(argv[2], argv[3]);
    if (argc >= 4 && strcmp(argv[1], "server") == 0) {
        DBusConnection *connection = connect_bus(argv[2]);
        dbus_connection_add_filter(connection, serve_ping, NULL, NULL);
        own(connection, argv[3]);
        ready();
        while (dbus_connection_read_write_dispatch(connection, -1)) {}
        return 0;
    }
    if (argc >= 5 && strcmp(argv[1], "forwarder") == 0) {
        DBusConnection *connection = connect_bus(argv[2]);
        forward_target = argv[4];
        dbus_pending_call_allocate_data_slot(&connection_slot);
        dbus_connection_add_filter(connection, forward_ping, NULL, NULL);
        own(connection, argv[3]);
        ready();
        while (dbus_connection_read_write_dispatch(connection, -1)) {}
        return 0;
    }
    if (argc >= 5 && strcmp(argv[1], "relay") == 0) return relay(argv[2], argv[3], argv[4]);
    if (argc >= 5 && strcmp(argv[1], "spawner") == 0) {
        DBusConnection *connection = connect_bus(argv[2]);
        signal(SIGCHLD, SIG_IGN);  /* children are reaped by the kernel */
        spawn_argc = argc - 4;
        spawn_argv = calloc(spawn_argc + 2, sizeof(char *));
        for (int i = 0; i < spawn_argc; i++) spawn_argv[i] = argv[4 + i];
        dbus_connection_add_filter(connection, spawn_url, NULL, NULL);
        own(connection, argv[3]);
        ready();
        while (dbus_connection_read_write_dispatch(connection, -1)) {}
        return 0;
    }
    if (argc >= 4 && strcmp(argv[1], "handlers") == 0) {
        DBusConnection *connection = connect_bus(argv[2]);
        dbus_connection_add_filter(connection, handle_url, NULL, NULL);
        int passing = atoi(argv[3]);
        if (argc >= 5) own(connection, argv[4]);
        for (int i = 0; i <= passing; i++) {
            char path[32];
            snprintf(path, sizeof path, "/h%d", i);
            register_handler(connection, path, "https", "bench.example", i);  /* /h0: lowest priority, asked last */
        }
        ready();
        while (dbus_connection_read_write_dispatch(connection, -1)) {}
        return 0;
    }
    if (argc >= 4 && strcmp(argv[1], "filler") == 0) {
        DBusConnection *connection = connect_bus(argv[2]);
        int count = atoi(argv[3]);
        for (int i = 0; i < count; i++) {
            char path[32], scheme[32], host[64];
            snprintf(path, sizeof path, "/f%d", i);
            snprintf(scheme, sizeof scheme, "other%d", i % 50);
            snprintf(host, sizeof host, "host%d.other.example", i % 500);
            register_handler(connection, path, i % 2 ? "https" : scheme, host, i % 7);
        }
        ready();
        while (dbus_connection_read_write_dispatch(connection, -1)) {}
        return 0;
    }
    if (argc >= 9 && strcmp(argv[1], "client") == 0) {
        return client(argv[2], argv[3], argv[4], argv[5], argv[6], argv[7], atol(argv[8]));
    }
    fprintf(stderr, "usage: see the comment at the top of busbench.c\n");
    return 2;
}
