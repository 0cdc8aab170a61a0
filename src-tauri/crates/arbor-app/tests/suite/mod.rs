mod acp_agents;
mod host;
mod import;
mod live;
mod soak;
