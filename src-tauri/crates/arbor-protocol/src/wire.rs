//! Wire names of unit enum variants, read from each type's own serde attributes,
//! so the name a status or an event type has in the store, the CLI and the UI is
//! the one its JSON has: no hand-written `match` that could drift from serde.

use serde::Serialize;

/// The serde name of a unit variant (`"waiting_approval"` for `WaitingApproval`).
/// Only for unit enums whose names a test pins: the protocol's own (each walked in full), and
/// ACP's permission option kinds (`arbor acp`'s option ids).
pub fn name<T: Serialize>(value: &T) -> &'static str {
    serde_variant::to_variant_name(value).unwrap_or("unknown")
}

/// The variant whose wire name is `s`, among `all`.
pub fn parse<T: Serialize + Copy>(all: &[T], s: &str) -> Option<T> {
    all.iter().copied().find(|v| name(v) == s)
}
