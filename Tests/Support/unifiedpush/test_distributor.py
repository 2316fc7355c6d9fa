#!/usr/bin/python3
"""A UnifiedPush distributor for tests (D-Bus spec DBUS_0.3.0, interface org.unifiedpush.Distributor2).

Run with /usr/bin/python3 (Debian's python3-dbus, python3-gi and python3-cryptography):

    test_distributor.py --log calls.jsonl [--address ADDR] [--name test] [--connector 2|1]
                        [--fail-register REASON]

It plays both halves of the network a real distributor stands for: the push server (which hands
each registration an endpoint and relays messages) and, through its control interface, the
application server (which encrypts a message for the app with the app's Web Push keys, RFC 8291,
exactly as a real server would: a fresh P-256 key pair and salt per message, aes128gcm, one record).

- Owns org.unifiedpush.Distributor.NAME on ADDR (default: $DBUS_SESSION_BUS_ADDRESS) and serves
  org.unifiedpush.Distributor2 at /org/unifiedpush/Distributor:
  * Register(a{sv} {service, token, description?, vapid?}) -> a{sv} {success[, reason]}: a token is
    1-100 bytes; a new token gets a fresh endpoint (https://push.invalid/up/<20 random bytes>), a known
    token keeps its endpoint. On success NewEndpoint(a{sv} {token, endpoint}) is then called on the
    connector (service, /org/unifiedpush/Connector), without waiting for a reply, as the spec says.
    --fail-register REASON answers REGISTRATION_FAILED with that reason instead.
  * Unregister(a{sv} {token}): forgets the token and confirms with Unregistered(a{sv} {token}).
- Control interface org.schedd.test.DistributorControl at /org/schedd/test/Distributor:
  * Send(s target, s plaintext, s p256dh, s auth, s id) -> s json: target is an endpoint (as an
    application server knows it) or a token. Encrypts plaintext for the keys
    (base64url, as the app gives them to its server), delivers it with Connector2.Message(a{sv}
    {token, message: ay, id}) and answers once the connector replied:
    {"reply": {...} | null, "error": null | "Name: text", "elapsed_ns": N, "bytes": N}
    (elapsed_ns: CLOCK_MONOTONIC from sending Message to its reply). With --connector 1 it uses the
    legacy Connector1.Message(s token, ay message, s id), which has no reply.
  * SendRaw(s target, ay body, s id) -> s json: delivers body as it is (for bodies that must fail).
  * Replay(s target, s id) -> s json: delivers the last body delivered for the target again, byte for
    byte (a push server or distributor redelivering an old message; answered as Send).
  * ChangeEndpoint(s target) -> s: a new endpoint for the token, announced with NewEndpoint.
  * Drop(s target): the distributor unregisters the app itself (Unregistered(a{sv} {token})), as when
    the user removes it in the distributor's settings.
  * Registrations() -> s json: {token: {service, endpoint, description, registers}}.
  * Quit().
- Appends one JSON line per event to --log: {"event": "ready", ...} first, then
  {"event": "Register", "args": {...}, "reply": {...}}, {"event": "Unregister", ...},
  {"event": "NewEndpoint", "token", "endpoint"}, {"event": "Message", "token", "id", "reply"|"error", "elapsed_ns"},
  and every org.schedd.UnifiedPush1 signal it receives: {"event": "signal", "member", "args": [...]}.
  schedd sends those only to subscribed connections (unicast), so the distributor also stands in for
  the apps' listener: on the first Register from a connector connection it calls that connector's
  org.schedd.Scheduler1.SubscribeAllApps (before it sends NewEndpoint).
- SIGTERM/SIGINT/Quit exit at once with os._exit(0).
"""

import argparse
import base64
import hashlib
import hmac
import json
import os
import signal
import time

import dbus
import dbus.mainloop.glib
import dbus.service
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from gi.repository import GLib

PREFIX = "org.unifiedpush.Distributor."
DIST_PATH = "/org/unifiedpush/Distributor"
DIST_IFACE = "org.unifiedpush.Distributor2"
CONNECTOR_PATH = "/org/unifiedpush/Connector"
CONNECTOR2 = "org.unifiedpush.Connector2"
CONNECTOR1 = "org.unifiedpush.Connector1"
CONTROL_PATH = "/org/schedd/test/Distributor"
CONTROL_IFACE = "org.schedd.test.DistributorControl"


def b64u_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hkdf(salt, ikm, info, length):
    """HKDF-SHA256 (RFC 5869), one expansion block is enough for every length used here (<= 32)."""
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    return hmac.new(prk, info + b"\x01", hashlib.sha256).digest()[:length]


def webpush_encrypt(plaintext, p256dh, auth, record_size=4096):
    """RFC 8291 + RFC 8188 aes128gcm, as an application server encrypts a push for a subscription."""
    ua_public = b64u_decode(p256dh)
    auth_secret = b64u_decode(auth)
    receiver = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), ua_public)
    sender = ec.generate_private_key(ec.SECP256R1())
    as_public = sender.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    secret = sender.exchange(ec.ECDH(), receiver)
    ikm = hkdf(auth_secret, secret, b"WebPush: info\x00" + ua_public + as_public, 32)
    salt = os.urandom(16)
    cek = hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
    nonce = hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
    record = AESGCM(cek).encrypt(nonce, plaintext + b"\x02", b"")
    header = salt + record_size.to_bytes(4, "big") + bytes([len(as_public)]) + as_public
    return header + record


class Log:
    def __init__(self, path):
        self.path = path

    def write(self, entry):
        entry = dict(entry, t=time.time())
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")


def plain(value):
    if isinstance(value, (dbus.Array, dbus.ByteArray, bytes)) and (not value or isinstance(value[0], (dbus.Byte, int))):
        return {"bytes": len(value)}
    if isinstance(value, (dbus.Dictionary, dict)):
        return {str(k): plain(v) for k, v in value.items()}
    return str(value)


class Distributor(dbus.service.Object):
    def __init__(self, bus, log, args):
        super().__init__(bus, DIST_PATH)
        self.bus = bus
        self.log = log
        self.args = args
        self.clients = {}  # token -> {service, endpoint, description, registers}
        self.subscribed = set()  # connector connections (unique names) subscribed to

    @dbus.service.method(DIST_IFACE, in_signature="a{sv}", out_signature="a{sv}", sender_keyword="sender")
    def Register(self, args, sender=None):
        service = str(args.get("service", ""))
        token = str(args.get("token", ""))
        reply = {"success": "REGISTRATION_SUCCEEDED"}
        if self.args.fail_register:
            reply = {"success": "REGISTRATION_FAILED", "reason": self.args.fail_register}
        elif not service or not token or len(token.encode()) > 100:
            reply = {"success": "REGISTRATION_FAILED", "reason": "INTERNAL_ERROR"}
        self.log.write({"event": "Register", "sender": str(sender), "args": plain(args), "reply": reply})
        if sender is not None and str(sender) not in self.subscribed:
            self.subscribed.add(str(sender))
            self.bus.call_async(str(sender), "/org/schedd/Scheduler1", "org.schedd.Scheduler1", "SubscribeAllApps", "",
                                (), None, lambda error: self.log.write({"event": "subscribe-failed", "error": str(error)}))
        if reply["success"] == "REGISTRATION_SUCCEEDED":
            client = self.clients.get(token)
            if client is None:
                client = {"service": service, "endpoint": self.new_endpoint(), "registers": 0}
                self.clients[token] = client
            client["service"] = service
            client["description"] = str(args.get("description", ""))
            client["registers"] += 1
            GLib.idle_add(self.announce_endpoint, token)
        return dbus.Dictionary(reply, signature="sv")

    @dbus.service.method(DIST_IFACE, in_signature="a{sv}", out_signature="")
    def Unregister(self, args):
        token = str(args.get("token", ""))
        client = self.clients.pop(token, None)
        self.log.write({"event": "Unregister", "args": plain(args), "known": client is not None})
        if client is not None:
            self.call_connector(client["service"], "Unregistered", {"token": token})

    def token_for(self, target):
        """A token, or the token of the endpoint `target` (what an application server pushes to)."""
        if target in self.clients:
            return target
        for token, client in self.clients.items():
            if client["endpoint"] == target:
                return token
        return target

    def new_endpoint(self):
        return "https://push.invalid/up/" + b64u(os.urandom(20))

    def announce_endpoint(self, token):
        client = self.clients.get(token)
        if client is not None:
            self.log.write({"event": "NewEndpoint", "token": token, "endpoint": client["endpoint"]})
            if self.args.connector == 1:
                self.bus.call_async(client["service"], CONNECTOR_PATH, CONNECTOR1, "NewEndpoint", "ss",
                                    (token, client["endpoint"]), None, None)
            else:
                self.call_connector(client["service"], "NewEndpoint", {"token": token, "endpoint": client["endpoint"]})
        return False

    def call_connector(self, service, member, fields):
        """A Connector2 call the spec marks NoReply: sent, never waited for."""
        self.bus.call_async(service, CONNECTOR_PATH, CONNECTOR2, member, "a{sv}",
                            (dbus.Dictionary(fields, signature="sv"),), None, None)


class Control(dbus.service.Object):
    def __init__(self, bus, log, distributor, loop):
        super().__init__(bus, CONTROL_PATH)
        self.bus = bus
        self.log = log
        self.distributor = distributor
        self.loop = loop
        self.last_body = {}  # token -> the last body delivered (Replay)

    @dbus.service.method(CONTROL_IFACE, in_signature="sssss", out_signature="s",
                         async_callbacks=("reply_ok", "reply_error"))
    def Send(self, token, plaintext, p256dh, auth, message_id, reply_ok, reply_error):
        try:
            body = webpush_encrypt(plaintext.encode(), str(p256dh), str(auth))
        except Exception as error:  # keys the app server cannot use
            reply_error(dbus.exceptions.DBusException("cannot encrypt: %s" % error,
                                                      name="org.schedd.test.Error.BadKeys"))
            return
        self.deliver(str(token), body, str(message_id), reply_ok)

    @dbus.service.method(CONTROL_IFACE, in_signature="says", out_signature="s",
                         async_callbacks=("reply_ok", "reply_error"), byte_arrays=True)
    def SendRaw(self, token, body, message_id, reply_ok, reply_error):
        self.deliver(str(token), bytes(body), str(message_id), reply_ok)

    @dbus.service.method(CONTROL_IFACE, in_signature="ss", out_signature="s",
                         async_callbacks=("reply_ok", "reply_error"))
    def Replay(self, target, message_id, reply_ok, reply_error):
        body = self.last_body.get(self.distributor.token_for(str(target)))
        if body is None:
            reply_error(dbus.exceptions.DBusException("nothing was delivered for %s" % target,
                                                      name="org.schedd.test.Error.NothingToReplay"))
            return
        self.deliver(str(target), body, str(message_id), reply_ok)

    def deliver(self, target, body, message_id, reply_ok):
        token = self.distributor.token_for(target)
        client = self.distributor.clients.get(token)
        if client is None:
            reply_ok(json.dumps({"reply": None, "error": "unknown token", "elapsed_ns": 0, "bytes": len(body)}))
            return
        self.last_body[token] = body
        start = time.monotonic_ns()

        def finish(reply, error):
            elapsed = time.monotonic_ns() - start
            entry = {"event": "Message", "token": token, "id": message_id, "bytes": len(body),
                     "reply": reply, "error": error, "elapsed_ns": elapsed}
            self.log.write(entry)
            reply_ok(json.dumps({"reply": reply, "error": error, "elapsed_ns": elapsed, "bytes": len(body)}))

        if self.distributor.args.connector == 1:
            self.bus.call_async(client["service"], CONNECTOR_PATH, CONNECTOR1, "Message", "says",
                                (token, dbus.ByteArray(body), message_id), None, None)
            finish(None, None)
            return
        fields = {"token": token, "message": dbus.ByteArray(body)}
        if message_id:
            fields["id"] = message_id
        self.bus.call_async(client["service"], CONNECTOR_PATH, CONNECTOR2, "Message", "a{sv}",
                            (dbus.Dictionary(fields, signature="sv"),),
                            lambda reply: finish(plain(reply), None),
                            lambda error: finish(None, "%s: %s" % (error.get_dbus_name(), error.get_dbus_message())),
                            timeout=30.0)

    @dbus.service.method(CONTROL_IFACE, in_signature="s", out_signature="s")
    def ChangeEndpoint(self, target):
        token = self.distributor.token_for(str(target))
        client = self.distributor.clients[token]
        client["endpoint"] = self.distributor.new_endpoint()
        self.distributor.announce_endpoint(token)
        return client["endpoint"]

    @dbus.service.method(CONTROL_IFACE, in_signature="s", out_signature="")
    def Drop(self, target):
        token = self.distributor.token_for(str(target))
        client = self.distributor.clients.pop(token, None)
        self.log.write({"event": "Drop", "token": token, "known": client is not None})
        if client is not None:
            self.distributor.call_connector(client["service"], "Unregistered", {"token": token})

    @dbus.service.method(CONTROL_IFACE, in_signature="", out_signature="s")
    def Registrations(self):
        return json.dumps(self.distributor.clients)

    @dbus.service.method(CONTROL_IFACE, in_signature="", out_signature="")
    def Quit(self):
        os._exit(0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--address")
    parser.add_argument("--name", default="test")
    parser.add_argument("--connector", type=int, choices=[1, 2], default=2)
    parser.add_argument("--fail-register")
    args = parser.parse_args()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: os._exit(0))
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    if args.address:
        bus = dbus.bus.BusConnection(args.address)
    else:
        bus = dbus.SessionBus()
    log = Log(args.log)
    loop = GLib.MainLoop()
    distributor = Distributor(bus, log, args)
    Control(bus, log, distributor, loop)
    name = dbus.service.BusName(PREFIX + args.name, bus, do_not_queue=True)
    # Observes schedd's signals for apps, so tests can check them in the same log.
    def record_signal(*args, **keywords):
        log.write({"event": "signal", "member": keywords.get("member"), "args": [str(a) for a in args]})

    bus.add_signal_receiver(record_signal, dbus_interface="org.schedd.UnifiedPush1", member_keyword="member")
    log.write({"event": "ready", "name": PREFIX + args.name, "owner": bus.get_unique_name(), "pid": os.getpid()})
    loop.run()
    del name  # owned until here: a collected BusName releases the name


if __name__ == "__main__":
    main()
