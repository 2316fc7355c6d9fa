// schedd's test probe inside GNOME Shell 43 (Tests/Support/notify/start-server.sh gnome-shell enables it
// through the session mode schedd-test). GNOME 43 allows org.gnome.Shell.Eval only in unsafe mode, which a
// release build cannot be started in; this is the Looking Glass view the tests need, read-only:
//   Settle() → b   once the shell has started: leaves the overview and drops the notifications of its own
//                  start (the "privileged user" notice when run as root); true when no banner is up or queued.
//   Banner() → s   JSON: the banner on screen, or null when none is shown: {state, title, body (the texts the
//                  shell set, markup parsed), box (the banner), texts: [{text, box}] (every text actor of the
//                  banner that is on screen), buttons: [{label, box}]}; a box is {x, y, w, h, mapped, opacity}
//                  in screen pixels.
//   Tray() → s     JSON: every notification the tray holds (title, body, urgency, resident, acknowledged).
//   TopBar() → i   the height in screen pixels of the top bar (the panel, where the clock is drawn).
/* exported init, enable, disable */
const { Clutter, Gio } = imports.gi;
const Main = imports.ui.main;
const MessageTray = imports.ui.messageTray;

const IFACE = `<node>
  <interface name="org.schedd.test.ShellProbe">
    <method name="Settle"><arg type="b" direction="out" name="settled"/></method>
    <method name="Banner"><arg type="s" direction="out" name="json"/></method>
    <method name="Tray"><arg type="s" direction="out" name="json"/></method>
    <method name="TopBar"><arg type="i" direction="out" name="height"/></method>
  </interface>
</node>`;

const STATES = ['hidden', 'showing', 'shown', 'hiding'];

function box(actor) {
    const [x, y] = actor.get_transformed_position();
    const [w, h] = actor.get_transformed_size();
    return { x: Math.round(x), y: Math.round(y), w: Math.round(w), h: Math.round(h),
             mapped: actor.is_mapped(), opacity: actor.get_paint_opacity() };
}

function texts(actor, into) {
    if (!actor.is_mapped())
        return into;
    if (actor instanceof Clutter.Text && actor.get_text() !== '')
        into.push({ text: actor.get_text(), box: box(actor) });
    for (const child of actor.get_children())
        texts(child, into);
    return into;
}

class Probe {
    Settle() {
        if (Main.layoutManager._startingUp)
            return false;
        if (Main.overview.visible)
            Main.overview.hide();
        for (const source of Main.messageTray.getSources())
            source.destroy(MessageTray.NotificationDestroyedReason.SOURCE_CLOSED);
        return !Main.overview.visible && !Main.overview.animationInProgress &&
            Main.messageTray._notificationState === MessageTray.State.HIDDEN &&
            Main.messageTray.queueCount === 0;
    }

    Banner() {
        const tray = Main.messageTray;
        const banner = tray._banner;
        if (!banner || tray._notificationState === MessageTray.State.HIDDEN)
            return 'null';
        const buttons = banner._buttonBox ? banner._buttonBox.get_children() : [];
        return JSON.stringify({
            state: STATES[tray._notificationState],
            title: banner.titleLabel.get_text(),
            body: banner.bodyLabel.get_text(),
            box: box(tray._bannerBin),
            texts: texts(tray._bannerBin, []),
            buttons: buttons.map(b => ({ label: b.label, box: box(b) })),
        });
    }

    Tray() {
        const all = [];
        for (const source of Main.messageTray.getSources()) {
            for (const n of source.notifications) {
                all.push({ source: source.title, title: n.title, body: n.bannerBodyText, urgency: n.urgency,
                           resident: n.resident, acknowledged: n.acknowledged });
            }
        }
        return JSON.stringify(all);
    }

    TopBar() {
        const [, y] = Main.panel.get_transformed_position();
        const [, h] = Main.panel.get_transformed_size();
        return Math.round(y + h);
    }
}

let exported = null;
let nameId = 0;

function init() {}

function enable() {
    exported = Gio.DBusExportedObject.wrapJSObject(IFACE, new Probe());
    exported.export(Gio.DBus.session, '/org/schedd/test/ShellProbe');
    nameId = Gio.bus_own_name_on_connection(Gio.DBus.session, 'org.schedd.test.ShellProbe',
        Gio.BusNameOwnerFlags.NONE, null, null);
}

function disable() {
    if (nameId)
        Gio.bus_unown_name(nameId);
    nameId = 0;
    exported?.unexport();
    exported = null;
}
