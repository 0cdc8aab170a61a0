/**
 * External ACP agents from Settings: the presets Rust offers, adding one (the
 * user's own agent file, written by Rust) and removing one. The catalog is
 * loaded again afterwards, so the Delegate… form offers the new type.
 */
import { commands, type AcpPreset, type AgentTypeInfo, type NewAcpAgent } from "../bindings";
import { attempt, loadCatalog, type Outcome } from "./actions";

export async function acpPresets(): Promise<AcpPreset[]> {
  try {
    return await commands.acpPresets();
  } catch {
    return [];
  }
}

export async function addAcpAgent(agent: NewAcpAgent, workspace: string): Promise<Outcome<AgentTypeInfo>> {
  const r = await attempt(() => commands.addAcpAgent(agent));
  if (r.ok) await loadCatalog(workspace || null);
  return r;
}

export async function removeAcpAgent(name: string, workspace: string): Promise<Outcome<null>> {
  const r = await attempt(() => commands.removeAcpAgent(name));
  if (r.ok) await loadCatalog(workspace || null);
  return r;
}

