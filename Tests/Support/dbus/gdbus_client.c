// A client of schedd in C, through the proxy gdbus-codegen generates from interfaces/*.xml (the
// installed interface descriptions): Push, ListPage, ClockAdvance, ListPage again, and UnifiedPush1.List,
// on the session bus (`schedd testbed` sets it). Prints one line per call:
//   push <outcomes>  |  list <pending> <next>  |  advance <clock>  |  list <pending> <next>  |  registrations <json>
// Built and run by InterfaceXMLTests:
//   gdbus-codegen --interface-prefix org.schedd. --c-namespace Schedd --generate-c-code schedd-generated
//       interfaces/org.schedd.Scheduler1.xml interfaces/org.schedd.UnifiedPush1.xml
//   cc gdbus_client.c schedd-generated.c $(pkg-config --cflags --libs gio-2.0 gio-unix-2.0)
#include <stdio.h>
#include <stdlib.h>
#include "schedd-generated.h"

static void fail(const char *what, GError *error) {
    fprintf(stderr, "%s: %s\n", what, error ? error->message : "failed");
    exit(1);
}

static void list(ScheddScheduler1 *scheduler) {
    GError *error = NULL;
    gchar *pending = NULL, *next = NULL;
    if (!schedd_scheduler1_call_list_page_sync(scheduler, "", 10, &pending, &next, NULL, &error)) fail("ListPage", error);
    printf("list %s %s\n", pending, *next ? next : "-");
    g_free(pending);
    g_free(next);
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s PUSH-JSON MICROSECONDS\n", argv[0]); return 2; }
    GError *error = NULL;
    ScheddScheduler1 *scheduler = schedd_scheduler1_proxy_new_for_bus_sync(
        G_BUS_TYPE_SESSION, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES, "org.schedd.Scheduler1",
        "/org/schedd/Scheduler1", NULL, &error);
    if (!scheduler) fail("proxy", error);
    gchar *outcomes = NULL;
    if (!schedd_scheduler1_call_push_sync(scheduler, argv[1], &outcomes, NULL, &error)) fail("Push", error);
    printf("push %s\n", outcomes);
    g_free(outcomes);
    list(scheduler);
    gchar *clock = NULL;
    guint64 span = g_ascii_strtoull(argv[2], NULL, 10);
    if (!schedd_scheduler1_call_clock_advance_sync(scheduler, span, &clock, NULL, &error)) fail("ClockAdvance", error);
    printf("advance %s\n", clock);
    g_free(clock);
    list(scheduler);
    // A bad push comes back as schedd's D-Bus error, with its name.
    if (schedd_scheduler1_call_push_sync(scheduler, "{\"bk\":{\"local\":{}}}", &outcomes, NULL, &error)) fail("bad Push", NULL);
    gchar *remote = g_dbus_error_get_remote_error(error);
    printf("error %s\n", remote ? remote : "?");
    g_free(remote);
    g_clear_error(&error);

    ScheddUnifiedPush1 *push = schedd_unified_push1_proxy_new_for_bus_sync(
        G_BUS_TYPE_SESSION, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES, "org.schedd.Scheduler1",
        "/org/schedd/Scheduler1", NULL, &error);
    if (!push) fail("UnifiedPush1 proxy", error);
    gchar *registrations = NULL;
    if (!schedd_unified_push1_call_list_sync(push, &registrations, NULL, &error)) fail("UnifiedPush1.List", error);
    printf("registrations %s\n", registrations);
    g_free(registrations);
    g_object_unref(push);
    g_object_unref(scheduler);
    return 0;
}
