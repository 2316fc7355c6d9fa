#!/usr/bin/python3
"""A bus peer that is not the distributor sending Connector2.Message for another app's token, with a
body encrypted correctly for that app's keys (RFC 8291, the test distributor's own encryption): what
someone who learned an app's token and keys would try. Prints one JSON line:
{"reply": {...}} or {"error": "Name: text"}, and {"sender": unique name}.

    forge_message.py ADDRESS TOKEN P256DH AUTH PLAINTEXT ID
"""
import importlib.util, json, os, sys

import dbus

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("test_distributor", os.path.join(here, "..", "unifiedpush", "test_distributor.py"))
distributor = importlib.util.module_from_spec(spec)
spec.loader.exec_module(distributor)

address, token, p256dh, auth, plaintext, message_id = sys.argv[1:7]
bus = dbus.bus.BusConnection(address)
body = distributor.webpush_encrypt(plaintext.encode(), p256dh, auth)
connector = dbus.Interface(bus.get_object("org.schedd.Scheduler1", "/org/unifiedpush/Connector"), "org.unifiedpush.Connector2")
out = {"sender": bus.get_unique_name()}
try:
    answer = connector.Message(dbus.Dictionary({"token": token, "message": dbus.ByteArray(body), "id": message_id},
                                               signature="sv"))
    out["reply"] = {str(k): str(v) for k, v in answer.items()}
except dbus.exceptions.DBusException as error:
    out["error"] = error.get_dbus_name() + ": " + error.get_dbus_message()
print(json.dumps(out), flush=True)
