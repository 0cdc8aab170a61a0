//! An external agent's permission options: the ones the card (and `arbor acp`, and
//! `arbor run`'s prompt) offers, in the agent's own words with what each is in
//! Arbor's terms, and the one an answer picks to send back.

use agent_client_protocol::v1::schema as acp;

/// The agent's options as the card offers them: its own words, each with the answer it
/// is in Arbor's terms (the one `choose` maps back to it). Of two options that answer the
/// same, the first is offered, as `choose` would pick it; a kind newer than this schema is left out.
pub(super) fn offered(options: &[acp::PermissionOption]) -> Vec<arbor_protocol::AgentOption> {
    use acp::PermissionOptionKind as K;
    use arbor_protocol::ApprovalScope::{Agent, Once};
    let mut out: Vec<arbor_protocol::AgentOption> = Vec::new();
    for o in options {
        let (approved, scope) = match o.kind {
            K::AllowOnce => (true, Once),
            K::AllowAlways => (true, Agent),
            K::RejectOnce => (false, Once),
            K::RejectAlways => (false, Agent),
            _ => continue,
        };
        if out.iter().any(|x| x.approved == approved && x.scope == scope) {
            continue;
        }
        let name = arbor_protocol::text::quote(o.name.trim(), MAX_OPTION);
        out.push(arbor_protocol::AgentOption { name, approved, scope });
    }
    out
}

/// An option's label kept: a button, not a paragraph.
const MAX_OPTION: usize = 80;

/// The agent's option for an answer: "always" when asked and offered, else once.
pub(super) fn choose(
    options: &[acp::PermissionOption],
    approved: bool,
    always: bool,
) -> acp::RequestPermissionResponse {
    use acp::PermissionOptionKind as K;
    let wanted: &[K] = match (approved, always) {
        (true, true) => &[K::AllowAlways, K::AllowOnce],
        (true, false) => &[K::AllowOnce, K::AllowAlways],
        (false, true) => &[K::RejectAlways, K::RejectOnce],
        (false, false) => &[K::RejectOnce, K::RejectAlways],
    };
    let chosen = wanted.iter().find_map(|k| options.iter().find(|o| o.kind == *k));
    match chosen {
        Some(o) => acp::RequestPermissionResponse::new(acp::RequestPermissionOutcome::Selected(
            acp::SelectedPermissionOutcome::new(o.option_id.clone()),
        )),
        // It offered no way to say this: the request is withdrawn rather than answered wrongly.
        None => acp::RequestPermissionResponse::new(acp::RequestPermissionOutcome::Cancelled),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_protocol::ApprovalScope;

    #[test]
    fn the_card_offers_the_agents_own_options_once_each_and_each_maps_back_to_itself() {
        use acp::PermissionOptionKind as K;
        let options = vec![
            acp::PermissionOption::new("always", "Always Allow", K::AllowAlways),
            acp::PermissionOption::new("allow", "Allow", K::AllowOnce),
            acp::PermissionOption::new("allow-2", "Allow this time too", K::AllowOnce),
            acp::PermissionOption::new("reject", &*"Reject ".repeat(40), K::RejectOnce),
        ];
        let shown = offered(&options);
        let said: Vec<(bool, ApprovalScope)> = shown.iter().map(|o| (o.approved, o.scope)).collect();
        assert_eq!(said, [(true, ApprovalScope::Agent), (true, ApprovalScope::Once), (false, ApprovalScope::Once)]);
        assert_eq!((shown[0].name.as_str(), shown[1].name.as_str()), ("Always Allow", "Allow"));
        assert!(shown[2].name.len() < 120, "a long label is cut: {}", shown[2].name);
        // Choosing an offered answer sends that very option back.
        let picked = |o: &arbor_protocol::AgentOption| match choose(
            &options,
            o.approved,
            o.scope != ApprovalScope::Once,
        )
        .outcome
        {
            acp::RequestPermissionOutcome::Selected(s) => s.option_id.0.to_string(),
            _ => "cancelled".into(),
        };
        assert_eq!(shown.iter().map(picked).collect::<Vec<_>>(), ["always", "allow", "reject"]);
        // An answer it offered no way to give is withdrawn, not given as something else.
        let none = choose(&options[1..2], false, false).outcome;
        assert!(matches!(none, acp::RequestPermissionOutcome::Cancelled));
    }
}
