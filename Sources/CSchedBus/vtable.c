// The org.schedd.Scheduler1 vtable, written with sd-bus's own macros (which do not import into
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
    METHOD("Track", "ss", SD_BUS_PARAM(event) SD_BUS_PARAM(data), "as", SD_BUS_PARAM(cancelled)),
    METHOD("Cancel", "s", SD_BUS_PARAM(id), "as", SD_BUS_PARAM(cancelled)),
    METHOD("CancelRun", "s", SD_BUS_PARAM(run), "as", SD_BUS_PARAM(cancelled)),
    METHOD("List", "uu", SD_BUS_PARAM(limit) SD_BUS_PARAM(offset), "s", SD_BUS_PARAM(pending)),
    METHOD("ListPage", "su", SD_BUS_PARAM(after) SD_BUS_PARAM(limit), "ss", SD_BUS_PARAM(pending) SD_BUS_PARAM(next)),
    METHOD("History", "u", SD_BUS_PARAM(limit), "s", SD_BUS_PARAM(records)),
    METHOD("HistoryPage", "tu", SD_BUS_PARAM(before) SD_BUS_PARAM(limit), "st", SD_BUS_PARAM(records) SD_BUS_PARAM(next)),
    METHOD("ClockShow", "", "", "s", SD_BUS_PARAM(clock)),
    METHOD("ClockSet", "s", SD_BUS_PARAM(time), "s", SD_BUS_PARAM(clock)),
    METHOD("ClockAdvance", "t", SD_BUS_PARAM(microseconds), "s", SD_BUS_PARAM(clock)),
    METHOD("ClockZone", "s", SD_BUS_PARAM(zone), "s", SD_BUS_PARAM(clock)),
    METHOD("DeclareApp", "s", SD_BUS_PARAM(app), "s", SD_BUS_PARAM(identity)),
    METHOD("ListAllAppsPage", "su", SD_BUS_PARAM(after) SD_BUS_PARAM(limit), "ss", SD_BUS_PARAM(pending) SD_BUS_PARAM(next)),
    SD_BUS_SIGNAL_WITH_NAMES("NotificationShown", "sss", SD_BUS_PARAM(id) SD_BUS_PARAM(notification) SD_BUS_PARAM(app), 0),
    SD_BUS_SIGNAL_WITH_NAMES("NotificationCancelled", "sss", SD_BUS_PARAM(id) SD_BUS_PARAM(reason) SD_BUS_PARAM(app), 0),
    SD_BUS_SIGNAL_WITH_NAMES("NotificationOpened", "sss", SD_BUS_PARAM(id) SD_BUS_PARAM(action) SD_BUS_PARAM(app), 0),
    SD_BUS_SIGNAL_WITH_NAMES("NotificationDismissed", "ss", SD_BUS_PARAM(id) SD_BUS_PARAM(app), 0),
    SD_BUS_VTABLE_END
};

const sd_bus_vtable *schedbus_vtable(void) { return vtable; }
