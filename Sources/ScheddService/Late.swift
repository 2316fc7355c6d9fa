/// A part made after a part that needs it: the one late-binding primitive of the parts' wiring (issue 32
/// item 4). Each part receives what it needs in its `init`; where two parts need each other (the clock's
/// methods deliver, and the delivery reads the clock), the part made first receives an accessor that
/// reads this box (`delivery: { late.value }`), the way every part reaches the engine through
/// `engine: () -> Engine`, and the wiring `bind`s the box once, right after making the other part, before
/// any call, loop iteration or change can reach the accessor. No part has a `var` set after its `init`.
///
/// Invariants (each broken one traps: a wiring bug, found by any test that builds the parts):
/// - bound exactly once;
/// - read only after `bind`;
/// - holds the part weakly: its owner (the daemon, a test's parts) keeps it, so two parts that need each
///   other make no reference cycle; a read after the owner let the part go traps.
///
/// Example: `let delivery = Late<Delivery>()`, `ServiceClock(…, delivery: { delivery.value })`,
/// `Delivery(…, clock: clock, …)`, then `delivery.bind(made)`. Loop thread only (like the parts); O(1).
public final class Late<Part: AnyObject> {
    private weak var part: Part?
    private var bound = false

    public init() {}

    /// Fills the box with `part`: once, before anything reads it.
    public func bind(_ part: Part) {
        precondition(!bound, "Late<\(Part.self)> bound twice")
        self.part = part
        bound = true
    }

    /// The part bound.
    public var value: Part {
        guard let part else {
            preconditionFailure(bound ? "Late<\(Part.self)> read after its owner let it go" : "Late<\(Part.self)> read before bind")
        }
        return part
    }
}
