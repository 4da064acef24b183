"""Operations commands (configuration management, delivery pipelines and bundles, ML and data
publishing, mobile toolchains, fan-out remote shells) and the standing-rule phrasings of issue #15,
written from what each tool does: their reads, rehearsals and one-offs stay out."""

from __future__ import annotations

import pytest

from memoryos.policies import commands
from memoryos.policies.capture import Event, classify


def _kind(command: str) -> str | None:
    return commands.command_kind(command)


def _stored(command: str) -> bool:
    return classify(Event("command", command=command, exit_status=0)) is not None


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("spin pipeline execute --application billing --name release-to-prod-deploy", "deploy"),
        ("spin pipeline execute --application web --name 'Canary rollout'", "deploy"),
        ("tkn pipeline start deploy-web -p env=staging", "deploy"),
        ("databricks bundle deploy --target prod", "deploy"),
        ("databricks apps deploy dashboard --source-code-path /Workspace/app", "deploy"),
        ("astro deploy cm1abcdef", "deploy"),
        ("modal deploy inference.py", "deploy"),
        ("mlflow deployments create -t databricks --name fraud -m models:/fraud/7", "deploy"),
        ("salt 'db*' state.highstate", "deploy"),
        ("sudo salt -C 'G@role:lb' state.apply haproxy", "deploy"),
        ("salt-call --local state.sls users", "deploy"),
        ("sudo puppet agent --test", "deploy"),
        ("puppet apply manifests/site.pp --modulepath=modules", "deploy"),
        ("sudo chef-client -o 'recipe[base::users]'", "deploy"),
        ("knife bootstrap 10.1.2.3 -N db2 --run-list 'role[db]'", "deploy"),
        ("bolt plan run app::upgrade -t webservers", "deploy"),
        ("firebase appdistribution:distribute build/app.ipa --app 1:42:ios:ff --groups beta", "publish"),
        ("dvc push -r storage", "publish"),
        ("huggingface-cli upload acme/classifier ./checkpoints", "publish"),
        ("hf upload acme/dataset ./data --repo-type dataset", "publish"),
        ("gh release upload v3.1.0 dist/tool-linux-amd64.tar.gz", "publish"),
        ("xcrun altool --upload-app -f build/App.ipa -t ios", "publish"),
        ("git ls-files '*_test.py' | xargs -n 4 python -m pytest -q", "test"),
        ("(cd mobile/android && ./gradlew connectedCheck)", "test"),
        ("./gradlew :core:testReleaseUnitTest", "test"),
        ("./gradlew clean bundleRelease", "build"),
        (
            "(cd ios && xcodebuild -scheme Shop -destination 'platform=iOS Simulator,name=iPhone 15' test)",
            "test",
        ),
        ("xcrun xcodebuild -workspace Shop.xcworkspace -scheme Shop archive", "build"),
        ("{ cd web; npm test; }", "test"),
        ("bundle exec fastlane ios beta", "deploy"),
        ("fastlane gym --scheme Shop", "build"),
        ("pssh -h inventory/web.txt -i 'systemctl restart nginx'", "auth"),
        ("parallel-ssh -h hosts -i uptime", "auth"),
        ("pdsh -w db[01-04] 'df -h'", "auth"),
        ("knife ssh 'role:web' 'sudo systemctl reload nginx'", "auth"),
        ("fastlane spaceauth -u releases@example.org", "auth"),
        ("Start-DscConfiguration -Path ./BaseConfig -Wait -Force", "deploy"),
        ("pyinfra inventories/prod.py deploys/web.py", "deploy"),
        ("kapp deploy -a api -f manifests/ -y", "deploy"),
        ("flux reconcile helmrelease api -n apps", "deploy"),
        ("mkdocs gh-deploy --force", "deploy"),
        ("ghp-import -n -p -f _build/html", "deploy"),
        (
            "gcloud artifacts generic upload --source=out.tgz --package=tool --version=2 --repository=r",
            "publish",
        ),
        ("xcodebuild test-without-building -xctestrun build/Shop.xctestrun", "test"),
        ("adb shell am instrument -w com.acme.shop.test/androidx.test.runner.AndroidJUnitRunner", "test"),
        ("flutter drive --target=integration_test/app_test.dart", "test"),
        ("parallel -j 4 pytest -q {} ::: tests/unit tests/api", "test"),
        ("conda-build recipe/", "build"),
        ("knife cookbook upload nginx --freeze", "publish"),
        ("berks upload", "publish"),
        ("ansible-galaxy collection publish acme-infra-1.2.0.tar.gz", "publish"),
        ("salt-ssh 'edge*' cmd.run 'systemctl status nginx'", "auth"),
    ],
)
def test_operations_commands_are_judged_by_what_they_do(command: str, kind: str) -> None:
    assert _kind(command) == kind


@pytest.mark.parametrize(
    "command",
    [
        "spin pipeline list --application billing",
        "spin pipeline get --name release-to-prod-deploy --application billing",
        "tkn pipeline list",
        "databricks bundle validate -t prod",
        "astro deployment list",
        "mlflow deployments list -t sagemaker",
        "salt 'web*' state.apply nginx test=True",
        "salt '*' test.ping",
        "puppet agent --test --noop",
        "puppet config print server",
        "sudo chef-client --why-run",
        "knife node list",
        "dvc status -c",
        "dvc pull",
        "huggingface-cli whoami",
        "gh release view v3.1.0",
        "xcodebuild -list",
        "xcodebuild -showsdks",
        "find src -name '*.py' | xargs wc -l",
        "(cd infra && terraform plan)",
        "./gradlew tasks",
        "Start-DscConfiguration -Path ./BaseConfig -WhatIf",
        "Test-DscConfiguration -Detailed",
        "pyinfra inventories/prod.py deploys/web.py --dry",
        "salt-ssh 'edge*' state.apply test=True",
        "flux get kustomizations",
        "adb devices",
        "ghp-import -n _build/html",
        "knife cookbook list",
        "ansible-galaxy collection install community.general",
    ],
)
def test_their_reads_and_rehearsals_are_not_actions(command: str) -> None:
    assert _kind(command) is None


def test_a_fastlane_login_keeps_the_tool_not_who_logs_in() -> None:
    found = classify(Event("command", command="fastlane spaceauth -u releases@example.org", exit_status=0))
    assert found is not None and "releases@example.org" not in found.body and "<email>" in found.body


def test_a_failed_configuration_run_is_not_stored() -> None:
    assert not classify(Event("command", command="salt '*' state.highstate", exit_status=2))
    assert _stored("salt '*' state.highstate")


@pytest.mark.parametrize(
    "text",
    [
        "House style is rebase, never merge commits.",
        "Team convention is to tag every release.",
        "We never hotfix on production servers; that is the release train's job.",
        "We always squash before merging.",
        "Keep credentials out of the notebooks; they belong in the secret scope.",
        "Large binaries belong in LFS; never commit them directly.",
        "Bitte schreibe immer Commit-Nachrichten auf Englisch.",
        "Lance toujours le linter avant un commit.",
        "Usa siempre ramas de feature.",
        "Esegui sempre i test prima del merge.",
        "Bitte die Migrationen immer zuerst auf Staging testen.",
        "Por favor, las ramas siempre con el número del ticket.",
        "S'il te plaît, les commits toujours en anglais.",
    ],
)
def test_standing_rules_said_as_house_habits_are_rules(text: str) -> None:
    assert classify(Event("instruction", text=text)) is not None


@pytest.mark.parametrize(
    "text",
    [
        "We never got the logs from them.",
        "We always had trouble with that VPN.",
        "Keep the terminal open.",
        "Es ist immer dasselbe.",
        "C'est toujours la même erreur.",
        "Bitte die Migrationen jetzt auf Staging testen.",
        "Bitte immer nur heute die Tests überspringen?",
        "Please, I never said that.",
        "Casi siempre falla el build.",
        "Fast immer dasselbe Problem.",
        "Bitte, es ist immer dasselbe.",
    ],
)
def test_habits_in_the_past_and_facts_are_not(text: str) -> None:
    assert classify(Event("instruction", text=text)) is None


@pytest.mark.parametrize(
    "command",
    [
        "knife ssh 'role:web' uptime -x admin -P Tr0ub4dor3xyz",
        "knife bootstrap 10.1.2.3 -x root -P Tr0ub4dor3xyz -N web3",
        "huggingface-cli upload acme/model ./out --token hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ012345",
        "databricks bundle deploy -t prod --token dapi0123456789abcdef0123456789abcdef",
    ],
)
def test_operations_commands_carrying_a_credential_are_refused(command: str) -> None:
    assert not _stored(command)


def test_a_knife_password_given_by_reference_is_kept() -> None:
    assert _stored("knife ssh 'role:web' uptime -x admin -P $KNIFE_PASSWORD")
