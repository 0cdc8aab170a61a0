//! Runs the real app in the real webview: a private Xvfb display, `tauri-driver`
//! (which drives Debian's WebKitWebDriver), a WebDriver session that launches
//! `arbor-desktop`, and helpers that poll the page the way a person waits for it.

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a step may take before the test fails (first paint alone can take seconds here).
pub const PATIENCE: Duration = Duration::from_secs(40);
/// Linux's `O_NONBLOCK`: a FIFO opened to write with it fails at once while no one reads it.
const O_NONBLOCK: i32 = 0o4000;

/// Makes `path` a FIFO, standing in for a file that hangs when read (a dead mount): a
/// read of it waits until the test writes and closes it.
pub fn make_fifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}
/// The driver's and the app's output, in the test's own directory.
const APP_OUTPUT: &str = "app-output.log";
/// How much of the page's console a failed wait quotes.
const CONSOLE_LINES: usize = 30;

/// Outside the panes of the live sessions out of view (kept mounted and hidden, ui/src/components/layout/SessionPanes.tsx).
const NOT_HIDDEN: &str = ":not([data-pane=hidden] *)";

/// `css`, each of its comma-separated selectors limited to what a person can see of the
/// sessions: never a hidden session's pane. (No selector here has a comma inside brackets.)
pub fn shown(css: &str) -> String {
    css.split(',').map(|part| format!("{}{NOT_HIDDEN}", part.trim())).collect::<Vec<_>>().join(", ")
}

/// Kills a child process (SIGTERM, so tauri-driver takes WebKitWebDriver and the app down with it).
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.0.id().to_string()]).status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if matches!(self.0.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A private Xvfb display of `screen` ("WxHxD"), its framebuffer a file in `dir`
/// (`-fbdir`): the process, and the display's name (":N"; Xvfb picks a free one
/// and writes its number on stdout, `-displayfd 1`).
pub fn private_display(dir: &Path, screen: &str) -> (Child, String) {
    let mut xvfb = Command::new("Xvfb")
        .args(["-displayfd", "1", "-screen", "0", screen, "-nolisten", "tcp", "-nocursor", "-fbdir"])
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("Xvfb is needed for the end-to-end tests (apt install xvfb; scripts/install-deps.sh does)");
    let mut line = String::new();
    BufReader::new(xvfb.stdout.take().unwrap()).read_line(&mut line).unwrap();
    (xvfb, format!(":{}", line.trim()))
}

/// `cmd` (the app, or the driver that starts it) on `display`, with its config and data
/// under `dir`, and no real provider, keyring or desktop bus from the machine running it.
/// The webview's own storage too (its cache, localStorage, the window's saved size): a run
/// never reads what an earlier one left, such as a page cached from another build of the UI.
pub fn isolated<'a>(cmd: &'a mut Command, display: &str, dir: &Path) -> &'a mut Command {
    cmd.env("DISPLAY", display)
        .env("XDG_DATA_HOME", dir.join("xdg/data"))
        .env("XDG_CACHE_HOME", dir.join("xdg/cache"))
        .env("XDG_CONFIG_HOME", dir.join("xdg/config"))
        .env_remove("WAYLAND_DISPLAY")
        .env("ARBOR_CONFIG_DIR", dir.join("config"))
        // Claude Code's settings of whoever runs the tests are not the app's under test.
        .env("CLAUDE_CONFIG_DIR", dir.join("claude"))
        .env("ARBOR_DATA_DIR", dir.join("data"))
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
}

fn tool(name: &str) -> PathBuf {
    let cargo_bin = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo/bin").join(name));
    match cargo_bin {
        Some(p) if p.is_file() => p,
        _ => PathBuf::from(name),
    }
}

/// The app under test and everything around it. Dropping it closes the window,
/// tauri-driver and the display.
pub struct App {
    pub client: Client,
    _dir: tempfile::TempDir,
    /// The app's binary and the environment it was launched with (a relaunch uses them again).
    app: PathBuf,
    env: Vec<(String, String)>,
    pub workspace: PathBuf,
    pub shots: PathBuf,
    /// The private X display (":N") the app's window is on.
    display: String,
    _driver: Proc,
    _display: Proc,
}

impl App {
    /// Starts the app on a fresh config and data dir, with `env` for its
    /// providers (e.g. the scripted server's base URL) and `workspace` as its first argument.
    ///
    /// WebKit keeps its GL compositor here: without a GPU the app would paint
    /// without it (src-tauri/src/painting.rs), and WebKitWebDriver's screenshots
    /// fail in that mode, after which the session hangs. The benchmark, which
    /// takes none, measures the app's own choice.
    pub async fn launch(env: &[(&str, String)]) -> App {
        let mut env = env.to_vec();
        env.push(("WEBKIT_DISABLE_COMPOSITING_MODE", "0".to_string()));
        // The page's console into the app's output, which a failed wait quotes.
        env.push(("ARBOR_WEB_CONSOLE", "1".to_string()));
        Self::launch_with(Path::new(env!("CARGO_BIN_EXE_arbor-desktop")), &env, None).await
    }

    /// As [`App::launch`], its Anthropic provider the scripted `server` (with a stand-in key).
    pub async fn launch_scripted(server: &arbor_testkit::ScriptedServer) -> App {
        Self::launch(&[
            ("ANTHROPIC_BASE_URL", server.anthropic_base_url()),
            ("ANTHROPIC_API_KEY", "e2e-test-key".to_string()),
        ])
        .await
    }

    /// As [`App::launch`], with another build of the app and a settings file written first.
    pub async fn launch_with(app: &Path, env: &[(&str, String)], settings: Option<&Value>) -> App {
        let dir = tempfile::tempdir().unwrap();
        if let Some(s) = settings {
            std::fs::create_dir_all(dir.path().join("config")).unwrap();
            std::fs::write(dir.path().join("config/settings.json"), s.to_string()).unwrap();
        }
        let workspace = dir.path().join("workspace");
        std::fs::create_dir_all(&workspace).unwrap();
        std::fs::write(workspace.join("README.md"), "# e2e workspace\n").unwrap();
        let env = env.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect();
        Self::start(dir, app.to_path_buf(), env).await
    }

    /// The app again on the same config, data and workspace, once the one before has ended
    /// (its data dir's lock let go: a launch before that would only bring it forward).
    pub async fn relaunch(self) -> App {
        let App { client, _dir: dir, app, env, _driver, _display, .. } = self;
        let _ = client.close().await;
        drop(_driver);
        drop(_display);
        let lock = dir.path().join("data/desktop.lock");
        let started = Instant::now();
        loop {
            let free =
                std::fs::OpenOptions::new().write(true).open(&lock).map(|f| f.try_lock().is_ok()).unwrap_or(true);
            if free {
                break;
            }
            assert!(started.elapsed() < PATIENCE, "the app before never ended: its data dir is still locked");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Self::start(dir, app, env).await
    }

    async fn start(dir: tempfile::TempDir, app: PathBuf, env: Vec<(String, String)>) -> App {
        let workspace = dir.path().join("workspace");
        let (xvfb, display) = private_display(dir.path(), "1600x1000x24");
        let display_proc = Proc(xvfb);

        let port = free_port();
        let native_port = free_port();
        let mut cmd = Command::new(tool("tauri-driver"));
        cmd.args(["--port", &port.to_string(), "--native-port", &native_port.to_string()]);
        // The driver's output and the app's under it (with the page's console: ARBOR_WEB_CONSOLE).
        let output = std::fs::File::create(dir.path().join(APP_OUTPUT)).unwrap();
        let errors = output.try_clone().unwrap();
        isolated(&mut cmd, &display, dir.path()).stdout(output).stderr(errors);
        for (k, v) in &env {
            cmd.env(k, v);
        }
        let driver = Proc(
            cmd.spawn()
                .expect("tauri-driver is needed for the end-to-end tests (cargo install tauri-driver; scripts/install-deps.sh does)"),
        );
        // tauri-driver listens before WebKitWebDriver does: retry the session until both are up.
        let caps: serde_json::Map<String, Value> = serde_json::from_value(json!({
            "tauri:options": {
                "application": app.display().to_string(),
                "args": [workspace.display().to_string()],
            }
        }))
        .unwrap();
        let started = Instant::now();
        let client = loop {
            match ClientBuilder::native().capabilities(caps.clone()).connect(&format!("http://127.0.0.1:{port}")).await
            {
                Ok(c) => break c,
                Err(e) if started.elapsed() < PATIENCE => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
                Err(e) => panic!("no WebDriver session with the app: {e}"),
            }
        };
        let shots = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/e2e-screenshots");
        std::fs::create_dir_all(&shots).unwrap();
        App { client, _dir: dir, app, env, workspace, shots, display, _driver: driver, _display: display_proc }
    }

    /// The app launched again beside this one, on the same data dir and display, as a
    /// person would from a launcher: its exit status and what it printed.
    pub fn second_launch(&self) -> std::process::Output {
        let mut cmd = Command::new(&self.app);
        isolated(&mut cmd, &self.display, self._dir.path()).arg(&self.workspace);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > PATIENCE {
                let _ = child.kill();
                panic!("a second launch on the same data dir did not end: it started a second app");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        child.wait_with_output().unwrap()
    }

    /// The app's top-level X windows (named "Arbor", with or without a count).
    fn toplevels(&self) -> Vec<String> {
        let out = Command::new("xwininfo")
            .args(["-root", "-children", "-display", &self.display])
            .output()
            .expect("xwininfo (x11-utils; scripts/install-deps.sh installs it)");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.split('"').nth(1).is_some_and(|name| name.ends_with("Arbor")))
            .filter_map(|l| l.split_whitespace().next().map(str::to_string))
            .collect()
    }

    /// Whether the app's window is on screen (mapped), as a person would see it.
    pub fn window_shown(&self) -> bool {
        self.toplevels().iter().any(|id| {
            let out = Command::new("xwininfo").args(["-id", id, "-display", &self.display]).output();
            out.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("IsViewable"))
        })
    }

    /// Closes the window as a desktop's close button does: WM_DELETE_WINDOW to each
    /// top-level window (`tests/e2e/wm_close.py`, libX11 through ctypes).
    pub fn close_window_as_the_desktop_does(&self) {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/wm_close.py");
        let ids = self.toplevels();
        assert!(!ids.is_empty(), "no Arbor window on the display");
        for id in ids {
            let status = Command::new("python3").arg(&script).args([&self.display, &id]).status().unwrap();
            assert!(status.success(), "wm_close.py failed on window {id}");
        }
    }

    /// The names of the X windows on the app's display, as a taskbar reads them
    /// (`xwininfo`, x11-utils): the OS window's title, not the page's.
    pub fn os_window_titles(&self) -> Vec<String> {
        let out = Command::new("xwininfo")
            .args(["-root", "-tree", "-display", &self.display])
            .output()
            .expect("xwininfo (x11-utils; scripts/install-deps.sh installs it)");
        String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| l.split('"').nth(1).map(str::to_string)).collect()
    }

    /// The first element matching `css`, waiting for it to appear.
    pub async fn find(&self, css: &str) -> Element {
        let css = shown(css);
        self.wait(&format!("an element {css}"), || async { self.client.find(Locator::Css(&css)).await.ok() }).await
    }

    pub async fn all(&self, css: &str) -> Vec<Element> {
        self.client.find_all(Locator::Css(&shown(css))).await.unwrap_or_default()
    }

    pub async fn click(&self, css: &str) {
        let what = format!("a click on {css}");
        let css = shown(css);
        self.wait(&what, || async {
            let el = self.client.find(Locator::Css(&css)).await.ok()?;
            el.click().await.ok()
        })
        .await;
    }

    /// Polls `probe` until it gives a value; fails the test naming `what` after [`PATIENCE`].
    pub async fn wait<T, F, Fut>(&self, what: &str, mut probe: F) -> T
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Option<T>>,
    {
        let start = Instant::now();
        loop {
            if let Some(v) = probe().await {
                return v;
            }
            if start.elapsed() > PATIENCE {
                self.screenshot("failure").await;
                let body = match self.client.find(Locator::Css("body")).await {
                    Ok(b) => b.text().await.unwrap_or_default(),
                    Err(_) => String::new(),
                };
                panic!("timed out waiting for {what}; the window showed:\n{body}\n{}", self.console());
            }
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
    }

    /// Text of `css` once it contains `needle`.
    pub async fn wait_text(&self, css: &str, needle: &str) -> String {
        let shown = shown(css);
        self.wait(&format!("{css} to show {needle:?}"), || async {
            let el = self.client.find(Locator::Css(&shown)).await.ok()?;
            let t = self.text_of(&el).await;
            t.contains(needle).then_some(t)
        })
        .await
    }

    /// Waits until the status bar's `what` (count-running, count-approvals, …) shows `n`.
    pub async fn wait_count(&self, what: &str, n: u64) {
        let css = shown(&format!("[data-testid={what}]"));
        self.wait(&format!("{what} to be {n}"), || async {
            let el = self.client.find(Locator::Css(&css)).await.ok()?;
            let text = self.text_of(&el).await;
            let digits: String =
                text.chars().skip_while(|c| !c.is_ascii_digit()).take_while(char::is_ascii_digit).collect();
            (digits.parse::<u64>().ok()? == n).then_some(())
        })
        .await
    }

    /// The text of `el` as the DOM holds it (WebKitWebDriver's visible-text
    /// algorithm drops some nested spans of the tree rows).
    pub async fn text_of(&self, el: &Element) -> String {
        let arg = serde_json::to_value(el).unwrap();
        match self.client.execute("return arguments[0].textContent", vec![arg]).await {
            Ok(Value::String(s)) => s,
            _ => String::new(),
        }
    }

    /// The tree rows as (agent id, description, status).
    pub async fn rows(&self) -> Vec<(String, String, String)> {
        let script = format!(
            "return Array.from(document.querySelectorAll('{}')).map(n => \
             [n.dataset.agentId, (n.querySelector('.desc') || n).textContent, n.dataset.status])",
            shown("[data-testid=tree-node]")
        );
        let rows = self.client.execute(&script, vec![]).await.unwrap_or(Value::Null);
        serde_json::from_value(rows).unwrap_or_default()
    }

    /// The tree node whose description is `label`.
    pub async fn node(&self, label: &str) -> Element {
        self.wait(&format!("a tree node {label:?}"), || async {
            let (id, _, _) = self.rows().await.into_iter().find(|(_, d, _)| d.trim() == label)?;
            self.client.find(Locator::Css(&shown(&format!("[data-testid=tree-node][data-agent-id='{id}']")))).await.ok()
        })
        .await
    }

    /// Waits until the node labelled `label` has `status`; returns its agent id.
    pub async fn node_status(&self, label: &str, status: &str) -> String {
        self.wait(&format!("{label:?} to be {status}"), || async {
            let (id, _, s) = self.rows().await.into_iter().find(|(_, d, _)| d.trim() == label)?;
            (s == status).then_some(id)
        })
        .await
    }

    /// The first element matching `css` whose text contains `needle`.
    pub async fn first_containing(&self, css: &str, needle: &str) -> Option<Element> {
        for el in self.all(css).await {
            if self.text_of(&el).await.contains(needle) {
                return Some(el);
            }
        }
        None
    }

    /// The first element matching `css` whose text contains `needle`, waiting for it.
    pub async fn wait_containing(&self, css: &str, needle: &str) -> Element {
        self.wait(&format!("{css} with {needle:?}"), || self.first_containing(css, needle)).await
    }

    /// The approval cards in the inbox, in its order.
    pub async fn approval_cards(&self) -> Vec<Element> {
        self.all("[data-testid=approval]").await
    }

    /// Waits until the inbox holds `n` cards.
    pub async fn wait_cards(&self, n: usize) {
        self.wait(&format!("{n} approval cards"), || async { (self.approval_cards().await.len() == n).then_some(()) })
            .await;
    }

    /// Chooses the answer's scope on an approval card (`once`, `agent`, `subtree`, `session`).
    /// Clicked until it shows chosen: a click in the moment a resized window lays out
    /// again can land beside it, and Approve answers with what is chosen.
    pub async fn choose_scope(&self, card: &Element, scope: &str) -> Element {
        let option = card.find(Locator::Css(&format!("[data-testid=scope-option][data-scope={scope}]"))).await.unwrap();
        self.wait(&format!("the {scope} scope chosen"), || async {
            if option.attr("aria-checked").await.ok()?.as_deref() == Some("true") {
                return Some(());
            }
            let _ = option.click().await;
            None
        })
        .await;
        option
    }

    /// Types `prompt` in the prompt box and sends it (a new session's task, or a message to the main agent).
    pub async fn send_prompt(&self, prompt: &str) {
        self.find("[data-testid=prompt-input]").await.send_keys(prompt).await.unwrap();
        self.click("[data-testid=send]").await;
    }

    /// Resizes the window and waits until the page has laid itself out at the new width.
    pub async fn resize(&self, width: u32, height: u32) {
        self.client.set_window_size(width, height).await.unwrap();
        self.wait(&format!("the page at {width} px"), || async {
            let w = self.client.execute("return window.innerWidth", vec![]).await.ok()?.as_u64()?;
            (w == u64::from(width)).then_some(())
        })
        .await;
        // The X server's framebuffer (what screenshots read) catches up with
        // the webview's paint at the new size a moment later.
        tokio::time::sleep(Duration::from_millis(400)).await;
    }

    /// What the page logged (WebKit's `CONSOLE` lines in the app's output), its last lines.
    pub fn console(&self) -> String {
        let output = std::fs::read_to_string(self._dir.path().join(APP_OUTPUT)).unwrap_or_default();
        let lines: Vec<&str> = output.lines().filter(|l| l.contains("CONSOLE")).collect();
        let last = &lines[lines.len().saturating_sub(CONSOLE_LINES)..];
        format!("the page's console ({} lines, the last {}):\n{}", lines.len(), last.len(), last.join("\n"))
    }

    /// Whether every element `css` matches is drawn whole inside the window (laid out
    /// inside its parent is not enough: a bar can wrap below the window's edge).
    pub async fn whole_in_window(&self, css: &str) -> bool {
        self.client
            .execute(
                "const els = [...document.querySelectorAll(arguments[0])]; \
                 return els.length > 0 && els.every(e => { const b = e.getBoundingClientRect(); \
                   return b.width > 0 && b.left >= 0 && b.top >= 0 \
                     && b.right <= window.innerWidth + 0.5 && b.bottom <= window.innerHeight + 0.5; });",
                vec![serde_json::json!(css)],
            )
            .await
            .ok()
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
    }

    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let path = self.shots.join(format!("{name}.png"));
        // What is on screen once the page has painted its latest state.
        let _ =
            self.client.execute_async("requestAnimationFrame(() => requestAnimationFrame(arguments[0]))", vec![]).await;
        // The page's frame is painted; the window's copy on the display can trail it (software
        // painting under Xvfb): a screenshot taken at once showed the page a few steps back.
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        let framebuffer = self._dir.path().join("Xvfb_screen0");
        let png = crate::xwd::png_of(&framebuffer).unwrap_or_else(|| {
            panic!("screenshot {name}: cannot read the display's framebuffer {}", framebuffer.display())
        });
        std::fs::write(&path, png).unwrap();
        path
    }

    /// Kills the window's web process as a crash or the OOM killer would (SIGKILL): the
    /// WebKit web process whose parent is this test's app (known by its data dir, as
    /// tests run side by side). Returns the pids killed.
    pub fn kill_web_process(&self) -> Vec<u32> {
        let data = format!("ARBOR_DATA_DIR={}", self._dir.path().join("data").display());
        let procs: Vec<(u32, u32, String)> = std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| {
                let pid: u32 = e.file_name().to_str()?.parse().ok()?;
                // comm is in parentheses and may hold spaces: the fields after the last ')'.
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                let (head, tail) = stat.rsplit_once(')')?;
                let comm = head.split_once('(')?.1.to_string();
                let ppid = tail.split_whitespace().nth(1)?.parse().ok()?;
                Some((pid, ppid, comm))
            })
            .collect();
        let apps: Vec<u32> = procs
            .iter()
            .filter(|(pid, _, comm)| {
                comm == "arbor-desktop"
                    && std::fs::read(format!("/proc/{pid}/environ"))
                        .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == data.as_bytes()))
            })
            .map(|(pid, _, _)| *pid)
            .collect();
        assert_eq!(apps.len(), 1, "one app on this test's data dir: {apps:?}");
        let webs: Vec<u32> = procs
            .iter()
            .filter(|(_, ppid, comm)| *ppid == apps[0] && comm.starts_with("WebKitWebProces"))
            .map(|(pid, _, _)| *pid)
            .collect();
        assert!(!webs.is_empty(), "the app {} has a web process", apps[0]);
        for pid in &webs {
            let status = Command::new("kill").args(["-KILL", &pid.to_string()]).status().unwrap();
            assert!(status.success(), "kill -KILL {pid}");
        }
        webs
    }

    /// The app's log (its data dir's `arbor-desktop.log`).
    /// The FIFO at `path` ([`make_fifo`]) opened to write, once the app has opened it to
    /// read (`what` names that read); the read then waits for what the test writes.
    pub async fn fifo_read_by_app(&self, path: &Path, what: &str) -> std::fs::File {
        use std::os::unix::fs::OpenOptionsExt;
        self.wait(what, || async { std::fs::OpenOptions::new().write(true).custom_flags(O_NONBLOCK).open(path).ok() })
            .await
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self._dir.path().join("data").join("arbor-desktop.log")).unwrap_or_default()
    }

    /// Claude Code's user settings dir as the app sees it (`CLAUDE_CONFIG_DIR`; not created).
    pub fn claude_dir(&self) -> PathBuf {
        self._dir.path().join("claude")
    }

    /// The app's transcript store (its data dir's `arbor.db`).
    pub fn store_path(&self) -> PathBuf {
        self._dir.path().join("data").join(arbor_store::Store::FILE_NAME)
    }

    pub fn file(&self, rel: &str) -> PathBuf {
        self.workspace.join(rel)
    }

    pub async fn close(self) {
        let _ = self.client.clone().close().await;
    }
}

pub fn exists(p: &Path) -> bool {
    p.is_file()
}
