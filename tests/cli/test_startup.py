"""``lemon --help`` stays fast because heavy libraries wait for the commands that need them."""

import os
import subprocess
import sys

HEAVY = ("yaml", "cattrs", "attrs", "pluggy", "dulwich", "pydantic", "mcp", "strictyaml",
         "tomllib", "tomli", "lemon_core.skills.api", "lemon_core.models")


def _loaded_after(code: str) -> list[str]:
    probe = (f"{code}\nimport sys\n"
             f"print('LOADED:' + ','.join(m for m in {HEAVY!r} if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True)
    loaded = result.stdout.rsplit("LOADED:", 1)[1].strip()
    return [m for m in loaded.split(",") if m]


def test_importing_the_cli_imports_no_heavy_library() -> None:
    assert _loaded_after("import lemon_core.cli") == []


def test_help_of_every_group_imports_no_heavy_library() -> None:
    for argv in ([], ["skill"], ["mcp"], ["plugins"]):
        code = ("from lemon_core.cli import main\n"
                f"try:\n    main({[*argv, '--help']!r})\nexcept SystemExit:\n    pass")
        assert _loaded_after(code) == [], argv


def test_version_and_completion_import_no_heavy_library() -> None:
    for argv in (["--version"], ["-V"], ["--show-completion", "bash"], ["skill", "-h"]):
        code = ("from lemon_core.cli import main\n"
                f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass")
        assert _loaded_after(code) == [], argv
    completing = ("import os\nos.environ.update(_LEMON_COMPLETE='complete_bash', "
                  "COMP_WORDS='lemon skill inspect --', COMP_CWORD='3')\n"
                  "from lemon_core.cli import main\n"
                  "try:\n    main([])\nexcept SystemExit:\n    pass")
    assert _loaded_after(completing) == []


def test_help_runs_as_a_console_script() -> None:
    result = subprocess.run(["lemon", "--help"], capture_output=True, text=True, check=True)
    assert "skill" in result.stdout and "mcp" in result.stdout and "plugins" in result.stdout


def test_importing_the_cli_leaves_the_collector_as_it_was() -> None:
    """The collector is off while the commands import (a faster start), then as before."""
    for before, expected in (("", "True"), ("gc.disable()\n", "False")):
        code = f"import gc\n{before}import lemon_core.cli\nprint(gc.isenabled())"
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True)
        assert result.stdout.strip() == expected


def test_an_install_into_a_new_home_does_not_import_cattrs(tmp_path) -> None:
    """Writing the first lockfile needs no cattrs (only reading one does)."""
    from tests.helpers import write_skill

    write_skill(tmp_path / "src", "demo")
    env = {**os.environ, "HOME": str(tmp_path / "home"),
           "LEMON_AGENT_DIR": str(tmp_path / "agent"), "LEMON_BUILTIN_SKILLS": "0"}
    code = ("import sys\nfrom lemon_core.cli import main\n"
            f"try:\n    main(['skill', 'install', {str(tmp_path / 'src' / 'demo')!r}, "
            "'--approve'])\nexcept SystemExit:\n    pass\n"
            "print('LOADED:' + str('cattrs' in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, env=env, cwd=tmp_path)
    assert "Installed demo" in result.stdout, result.stderr
    assert result.stdout.rsplit("LOADED:", 1)[1].strip() == "False"
    assert (tmp_path / "agent" / "skills.lock.json").is_file()
