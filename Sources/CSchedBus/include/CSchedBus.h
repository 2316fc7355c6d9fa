#ifndef CSCHEDBUS_H
#define CSCHEDBUS_H
#include <systemd/sd-bus.h>

/// The handler every method of the org.schedd.Scheduler1 vtable calls: it switches on
/// sd_bus_message_get_member(). Returns what an sd_bus_message_handler_t returns (>= 0 when a reply
/// was sent, a negative errno with ret_error set otherwise).
typedef int (*schedbus_dispatcher)(sd_bus_message *message, void *userdata, sd_bus_error *ret_error);

/// Installs the dispatcher; call once before schedbus_vtable() is registered.
void schedbus_set_dispatcher(schedbus_dispatcher dispatcher);

/// The vtable of interface org.schedd.Scheduler1 (methods with argument names, signals).
const sd_bus_vtable *schedbus_vtable(void);

/// org.schedd.UnifiedPush1: Register, Unregister, List; signals EndpointChanged, Unregistered.
const sd_bus_vtable *schedbus_unifiedpush_vtable(void);

/// org.unifiedpush.Connector2 (a{sv} arguments; NewEndpoint and Unregistered are NoReply).
const sd_bus_vtable *schedbus_connector2_vtable(void);

/// org.unifiedpush.Connector1 (positional arguments, every method NoReply).
const sd_bus_vtable *schedbus_connector1_vtable(void);

#endif
