"""Issue #15, fields no corpus had shown (written from what each tool does, not from any log line):
CMS live sites brought up to date, Odoo module updates, firmware upload targets, batch jobs waited
for on a cluster, builds from source, release tags pushed, deploy hooks whose answer is checked,
programs named for their action, fleet software repositories, namespaced verbs (`env:deploy`),
placeholder and flag-tail values that are not secrets; and rules in Chinese, Japanese and Hindi
whose marker sits mid-sentence, and rules said by their label. Each family has its negatives."""

from __future__ import annotations

import pytest

from memoryos.policies import commands
from memoryos.policies.capture import Event, classify


def _kind(command: str) -> str | None:
    return commands.command_kind(command)


def _candidate(command: str, status: int = 0) -> str | None:
    found = classify(Event("command", command=command, exit_status=status))
    return None if found is None else found.kind


def _rule(text: str) -> bool:
    found = classify(Event("instruction", text=text))
    return found is not None and found.kind == "rule"


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("wp theme update --all --path=/srv/www/shop", "deploy"),
        ("wp plugin activate woocommerce-subscriptions", "deploy"),
        ("drush @prod config:import -y", "deploy"),
        ("vendor/bin/drush updatedb --no-interaction", "deploy"),
        ("php bin/magento setup:upgrade --keep-generated", "deploy"),
        ("./craft migrate/all --interactive=0", "deploy"),
        ("terminus env:deploy shop.test --sync-content", "deploy"),
        ("odoo -c /etc/odoo/live.conf --update=stock_custom --database=live --stop-after-init", "deploy"),
        ("platformio run --environment nucleo_f401re --target upload", "deploy"),
        ("make -C firmware flash", "deploy"),
        ("nrfutil dfu serial -pkg build/fw.zip -p COM7", "deploy"),
        ("sbatch -W ci/tests/nightly.sbatch", "test"),
        ("bsub -K ./regression_tests.lsf", "test"),
        ("qsub -sync y build/compile_all.pbs", "build"),
        ("spack install --fail-fast openfoam@2306", "build"),
        ("micromamba create -f env/lock.yml -y", "build"),
        ("bitbake core-image-minimal", "build"),
        ("git push upstream refs/tags/r2026.11", "publish"),
        ("git push origin 3.1.0-rc1", "publish"),
        ("git push --tags origin", "publish"),
        ("curl --fail -X POST https://hooks.example.net/deploy/site-42", "deploy"),
        ("wget -q --post-data '' https://ci.example.org/api/build_hooks/abc", "deploy"),
        ("http --check-status POST https://paas.example.io/v2/apps/web/redeploy", "deploy"),
        ("ament_build --merge-install", "build"),
        ("catkin_make -DCMAKE_BUILD_TYPE=Release", "build"),
        ("munkiimport --nointeractive GoogleChrome.pkg", "publish"),
        ("autopkg run -v Zoom.munki", "publish"),
        ("acmectl env:deploy payments", "deploy"),
        ("mix hex.user auth", "auth"),
        ("octo create-release --project Billing --deployTo Staging", "deploy"),
        ("skopeo copy docker://localhost/api:2 docker://registry.example.io/team/api:2", "publish"),
        ("Rscript -e 'con <- DBI::dbConnect(odbc::odbc(), dsn = \"warehouse\")'", "db_connect"),
    ],
)
def test_field_families_are_recognised(command: str, kind: str) -> None:
    assert _kind(command) == kind


@pytest.mark.parametrize(
    "command",
    [
        "wp theme list",
        "wp plugin get akismet --field=version",
        "drush cr",
        "odoo -c /etc/odoo/live.conf --database=live",
        "platformio run --environment nucleo_f401re --target clean",
        "make flash-info",
        "npm run deploy:status",
        "sbatch ci/tests/nightly.sbatch",
        "bsub ./regression_tests.lsf",
        "spack find --long",
        "conda env create -n scratch python=3.12",
        "git push origin main",
        "git push origin feature/v3-auth",
        "git push --delete origin v1.2.0",
        "p4 submit -d 'lighting pass'",
        "curl -X POST https://hooks.example.net/deploy/site-42",
        "curl -fsS https://hooks.example.net/deploy/site-42/status",
        "curl -fsS -X POST https://api.example.net/v1/comments -d body=ok",
        "wget https://example.net/deploy/notes.txt",
        "ssh-keygen -t ed25519 -C build-box",
        "ssh-add ~/.ssh/id_ed25519",
        "munkiimport --configure",
        "firebase auth:export users.json",
        "kustomize build overlays/prod",
        "octo list-releases --project Billing",
        "skopeo copy docker://registry.example.io/api:2 docker-archive:/tmp/api.tar",
    ],
)
def test_their_reads_and_lookalikes_are_not(command: str) -> None:
    assert _kind(command) is None


def test_a_rendered_manifest_read_in_a_pager_is_trivial() -> None:
    assert commands.is_trivial("kustomize build overlays/prod | less")
    assert _kind("kustomize build overlays/prod | kubectl apply -f -") == "deploy"


@pytest.mark.parametrize(
    "command",
    ["catkin_make install", "sbatch --wait tests/a.slurm", "wp core update", "git push origin v1.0.0"],
)
def test_a_failure_is_never_a_candidate(command: str) -> None:
    assert _candidate(command, 0) is not None
    assert _candidate(command, 2) is None


@pytest.mark.parametrize(
    "command",
    [
        "tsh login --proxy=bastion.example.org --auth=github",
        "dotnet nuget push out/Acme.Lib.2.0.0.nupkg --source https://pkgs.example.org/feed/v3 --api-key az",
    ],
)
def test_a_flag_tail_or_a_placeholder_is_not_a_secret(command: str) -> None:
    assert commands.secret_reason(command) is None
    assert _candidate(command) == "capability"


@pytest.mark.parametrize(
    "command",
    [
        "dotnet nuget push out/Acme.Lib.nupkg --source feed --api-key oy2kq7hxw9",
        "AUTH=s3cr3tvalue ./deploy.sh",
        "tool login --token=abc",
    ],
)
def test_a_real_value_is_still_a_secret(command: str) -> None:
    assert commands.secret_reason(command) is not None
    assert _candidate(command) is None


@pytest.mark.parametrize(
    "text",
    [
        "以后所有的镜像都要先推到 harbor 再部署。",
        "以後每次發版都要先跑完整回歸測試。",
        "本番環境への変更は必ずレビューを通してください。",
        "कभी भी main ब्रांच पर सीधे force push मत करना।",
        "Project policy: every migration gets a rollback script.",
        "Regla del proyecto: cada PR necesita dos aprobaciones.",
        "Règle d'équipe : aucune clé dans le dépôt.",
        "Hausregel: Releases nur aus dem main-Branch.",
        "规则：所有接口都要有超时设置。",
    ],
)
def test_mid_sentence_and_labelled_rules_are_rules(text: str) -> None:
    assert _rule(text)


@pytest.mark.parametrize(
    "text",
    [
        "这次都要重新跑一遍吗？",
        "今回は必ず確認してください。",
        "Rule of thumb, I guess?",
        "मैंने कभी नहीं देखा यह?",
    ],
)
def test_their_one_offs_and_questions_are_not(text: str) -> None:
    assert not _rule(text)
