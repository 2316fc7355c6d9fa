// The vtables schedd serves (org.schedd.Scheduler1, org.schedd.UnifiedPush1 and the UnifiedPush
// connector interfaces), written with sd-bus's own macros (which do not import into
// Swift). Every method points at one trampoline that calls the Swift dispatcher; sd-bus checks the
// argument signatures and answers Introspect (with argument names) and Peer by itself.
#include "CSchedBus.h"
#include <errno.h>

static schedbus_dispatcher current_dispatcher;

void schedbus_set_dispatcher(schedbus_dispatcher dispatcher) { current_dispatcher = dispatcher; }

static int trampoline(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    if (!current_dispatcher) return -ENOSYS;
    return current_dispatcher(m, userdata, ret_error);
}

#define METHOD(name, in, in_names, out, out_names) \
    SD_BUS_METHOD_WITH_NAMES(name, in, in_names, out, out_names, trampoline, SD_BUS_VTABLE_UNPRIVILEGED)

static const sd_bus_vtable vtable[] = {
    SD_BUS_VTABLE_START(0),
    METHOD("Push", "s", SD_BUS_PARAM(push), "s", SD_BUS_PARAM(outcomes)),
    METHOD("PushBatch", "as", SD_BUS_PARAM(pushes), "as", SD_BUS_PARAM(answers)),
    METHOD("Track", "ss", SD_BUS_PARAM(event) SD_BUS_PARAM(data), "uasb", SD_BUS_PARAM(count) SD_BUS_PARAM(cancelled) SD_BUS_PARAM(more)),
    METHOD("Cancel", "s", SD_BUS_PARAM(id), "uasb", SD_BUS_PARAM(count) SD_BUS_PARAM(cancelled) SD_BUS_PARAM(more)),
    METHOD("CancelRun", "s", SD_BUS_PARAM(run), "uasb", SD_BUS_PARAM(count) SD_BUS_PARAM(cancelled) SD_BUS_PARAM(more)),
    METHOD("CancelReport", "s", SD_BUS_PARAM(id), "s", SD_BUS_PARAM(result)),
    METHOD("CancelRunReport", "s", SD_BUS_PARAM(run), "s", SD_BUS_PARAM(result)),
    METHOD("List", "uu", SD_BUS_PARAM(limit) SD_BUS_PARAM(offset), "s", SD_BUS_PARAM(pending)),
    METHOD("ListPage", "su", SD_BUS_PARAM(after) SD_BUS_PARAM(limit), "ss", SD_BUS_PARAM(pending) SD_BUS_PARAM(next)),
    METHOD("History", "u", SD_BUS_PARAM(limit), "s", SD_BUS_PARAM(records)),
    METHOD("HistoryPage", "tu", SD_BUS_PARAM(before) SD_BUS_PARAM(limit), "st", SD_BUS_PARAM(records) SD_BUS_PARAM(next)),
    METHOD("ClockShow", "", "", "s", SD_BUS_PARAM(clock)),
    METHOD("ClockSet", "s", SD_BUS_PARAM(time), "s", SD_BUS_PARAM(clock)),
    METHOD("ClockAdvance", "t", SD_BUS_PARAM(microseconds), "s", SD_BUS_PARAM(clock)),
    METHOD("ClockNext", "", "", "s", SD_BUS_PARAM(clock)),
    METHOD("ClockZone", "s", SD_BUS_PARAM(zone), "s", SD_BUS_PARAM(clock)),
    METHOD("DeclareApp", "s", SD_BUS_PARAM(app), "s", SD_BUS_PARAM(identity)),
    METHOD("ListAllAppsPage", "su", SD_BUS_PARAM(after) SD_BUS_PARAM(limit), "ss", SD_BUS_PARAM(pending) SD_BUS_PARAM(next)),
    METHOD("PendingCount", "", "", "u", SD_BUS_PARAM(count)),
    METHOD("PendingCountAllApps", "", "", "u", SD_BUS_PARAM(count)),
    METHOD("HistoryAllAppsPage", "tu", SD_BUS_PARAM(before) SD_BUS_PARAM(limit), "st", SD_BUS_PARAM(records) SD_BUS_PARAM(next)),
    METHOD("Tombstone", "s", SD_BUS_PARAM(id), "s", SD_BUS_PARAM(tombstone)),
    METHOD("Unblock", "s", SD_BUS_PARAM(id), "s", SD_BUS_PARAM(result)),
    METHOD("Snoozed", "u", SD_BUS_PARAM(limit), "s", SD_BUS_PARAM(snoozed)),
    METHOD("SnoozedAllApps", "u", SD_BUS_PARAM(limit), "s", SD_BUS_PARAM(snoozed)),
    METHOD("Subscribe", "", "", "s", SD_BUS_PARAM(identity)),
    METHOD("SubscribeAllApps", "", "", "s", SD_BUS_PARAM(identity)),
    METHOD("Status", "", "", "s", SD_BUS_PARAM(status)),
    METHOD("ClockSleep", "t", SD_BUS_PARAM(microseconds), "s", SD_BUS_PARAM(clock)),
    SD_BUS_SIGNAL_WITH_NAMES("NotificationShown", "sss", SD_BUS_PARAM(id) SD_BUS_PARAM(notification) SD_BUS_PARAM(app), 0),
    SD_BUS_SIGNAL_WITH_NAMES("NotificationCancelled", "sss", SD_BUS_PARAM(id) SD_BUS_PARAM(reason) SD_BUS_PARAM(app), 0),
    SD_BUS_SIGNAL_WITH_NAMES("NotificationOpened", "sss", SD_BUS_PARAM(id) SD_BUS_PARAM(action) SD_BUS_PARAM(app), 0),
    SD_BUS_SIGNAL_WITH_NAMES("NotificationDismissed", "ss", SD_BUS_PARAM(id) SD_BUS_PARAM(app), 0),
    SD_BUS_VTABLE_END
};

const sd_bus_vtable *schedbus_vtable(void) { return vtable; }

#define NO_REPLY_METHOD(name, in, in_names) \
    SD_BUS_METHOD_WITH_NAMES(name, in, in_names, "", , trampoline, \
                             SD_BUS_VTABLE_UNPRIVILEGED | SD_BUS_VTABLE_METHOD_NO_REPLY)

// org.schedd.UnifiedPush1 (docs/receiving-pushes.md): an app's registration for pushes.
static const sd_bus_vtable unifiedpush_vtable[] = {
    SD_BUS_VTABLE_START(0),
    METHOD("Register", "ss", SD_BUS_PARAM(app) SD_BUS_PARAM(description), "s", SD_BUS_PARAM(registration)),
    METHOD("Unregister", "s", SD_BUS_PARAM(app), "s", SD_BUS_PARAM(registration)),
    METHOD("List", "", "", "s", SD_BUS_PARAM(registrations)),
    SD_BUS_SIGNAL_WITH_NAMES("EndpointChanged", "ss", SD_BUS_PARAM(app) SD_BUS_PARAM(registration), 0),
    SD_BUS_SIGNAL_WITH_NAMES("Unregistered", "ss", SD_BUS_PARAM(app) SD_BUS_PARAM(reason), 0),
    SD_BUS_VTABLE_END
};

// org.unifiedpush.Connector2 (UnifiedPush D-Bus spec DBUS_0.3.0), at /org/unifiedpush/Connector.
static const sd_bus_vtable connector2_vtable[] = {
    SD_BUS_VTABLE_START(0),
    METHOD("Message", "a{sv}", SD_BUS_PARAM(args), "a{sv}", SD_BUS_PARAM(res)),
    NO_REPLY_METHOD("NewEndpoint", "a{sv}", SD_BUS_PARAM(args)),
    NO_REPLY_METHOD("Unregistered", "a{sv}", SD_BUS_PARAM(args)),
    SD_BUS_VTABLE_END
};

// org.unifiedpush.Connector1, the legacy positional form, for older distributors.
static const sd_bus_vtable connector1_vtable[] = {
    SD_BUS_VTABLE_START(0),
    NO_REPLY_METHOD("Message", "says", SD_BUS_PARAM(token) SD_BUS_PARAM(message) SD_BUS_PARAM(messageIdentifier)),
    NO_REPLY_METHOD("NewEndpoint", "ss", SD_BUS_PARAM(token) SD_BUS_PARAM(endpoint)),
    NO_REPLY_METHOD("Unregistered", "s", SD_BUS_PARAM(token)),
    SD_BUS_VTABLE_END
};

const sd_bus_vtable *schedbus_unifiedpush_vtable(void) { return unifiedpush_vtable; }
const sd_bus_vtable *schedbus_connector2_vtable(void) { return connector2_vtable; }
const sd_bus_vtable *schedbus_connector1_vtable(void) { return connector1_vtable; }
