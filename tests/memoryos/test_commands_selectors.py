"""Command families the classifier missed: logins that name who logs in, sign-ins run inside a
command substitution, compound deploy subcommands, `-cli` packages run by npx, workspace selectors,
rsync from a remote over ssh, and standing rules said as policy ("It's mandatory to", "X follow Y",
"X belong in Y", "every single time"). Written from what the tools do, not from any corpus line."""

from __future__ import annotations

import pytest

from memoryos.policies import commands, nostore
from memoryos.policies.capture import Candidate, Event, classify


def _candidate(command: str) -> Candidate | None:
    return classify(Event("command", command=command, exit_status=0))


def _rule(text: str) -> bool:
    found = classify(Event("instruction", text=text))
    return found is not None and found.kind == "rule"


@pytest.mark.parametrize(
    ("command", "address"),
    [
        ("heroku auth login --email mia.k@example.org", "mia.k@example.org"),
        ("vercel login --email=ops-team@corp.example.com", "ops-team@corp.example.com"),
        ("gcloud auth login --account=ci-runner@acme-prod.iam.gserviceaccount.com", "ci-runner@acme"),
        ("firebase login --account 'dev.lead@example.net'", "dev.lead@example.net"),
        ("az login --username sam@contoso.onmicrosoft.com", "sam@contoso.onmicrosoft.com"),
        ("lpass login --trust r.ortiz@example.io", "r.ortiz@example.io"),
    ],
)
def test_a_login_naming_its_identity_is_kept_without_it(command: str, address: str) -> None:
    found = _candidate(command)
    assert found is not None and found.kind == "capability"
    for text in (found.key, found.body):
        assert address not in text and "@" not in text
        assert not nostore.scan(text)


def test_adding_a_password_manager_account_is_a_sign_in() -> None:
    found = _candidate("op account add --address acme.1password.eu --email lee@example.org")
    assert found is not None and found.kind == "capability" and "lee@example.org" not in found.body


def test_an_account_name_is_replaced_too() -> None:
    found = _candidate("op signin --account acme-team")
    assert found is not None and "acme-team" not in found.body and "<account>" in found.body
    event = Event("auth", command="gcloud auth login --account ana@example.com", exit_status=0)
    typed = classify(event)
    assert typed is not None and "ana@example.com" not in typed.body


@pytest.mark.parametrize(
    "command",
    [
        "eval $(op signin)",
        'eval "$(op signin --account acme.1password.eu)"',
        "export BW_SESSION=$(bw unlock --raw)",
        'BW_SESSION="$(bw login --raw)"',
        "eval `op signin acme`",
        "source <(op signin --account acme)",
        'eval "$(aws ecr get-login --no-include-email --region eu-west-1)"',
    ],
)
def test_a_sign_in_inside_a_command_substitution_is_what_ran(command: str) -> None:
    found = _candidate(command)
    assert found is not None and found.kind == "capability" and found.key.startswith("connect:")


@pytest.mark.parametrize(
    "command",
    [
        "export VERSION=$(git describe --tags)",
        "eval $(ssh-agent -s) ; echo ok",
        "X=$(date +%s)",
        "diff <(ls a) <(ls b)",
    ],
)
def test_a_substitution_of_a_read_is_nothing(command: str) -> None:
    assert _candidate(command) is None


def test_a_pipe_inside_a_substitution_does_not_split_the_line() -> None:
    assert commands.split_simple("eval $(op signin | tr -d x) && make") == [
        "eval $(op signin | tr -d x) ",
        " make",
    ]


@pytest.mark.parametrize(
    "command",
    [
        "doctl apps create-deployment 0b6f1e2a-77c4-4d21-9e3b-5a8c0d9f1e42",
        "doctl apps create-deployment 0b6f1e2a-77c4-4d21-9e3b-5a8c0d9f1e42 --force-rebuild --wait",
        "octo deploy-release --project Shop --version 1.4.2 --deployto Production",
        "linode-cli lke start-deployment 5521",
        "scw container trigger-deployment 9c1d2e3f-aaaa-4bbb-8ccc-0123456789ab",
        "octo promote-release --project Shop --from Staging --to Production",
    ],
)
def test_a_compound_deploy_subcommand_is_a_deploy(command: str) -> None:
    found = _candidate(command)
    assert found is not None and found.kind == "capability" and found.key.startswith("deploy:")


@pytest.mark.parametrize(
    "command",
    [
        "doctl apps list-deployments 0b6f1e2a-77c4-4d21-9e3b-5a8c0d9f1e42",
        "doctl apps get-deployment 0b6f1e2a-77c4-4d21-9e3b-5a8c0d9f1e42 1f2e",
        "octo cancel-deployment --id 17",
        "octo create-release --project Shop",
        "octo list-releases --project Shop",
        "git checkout -b create-deployment",
    ],
)
def test_reading_or_cancelling_deployments_is_not_a_deploy(command: str) -> None:
    assert _candidate(command) is None


@pytest.mark.parametrize(
    ("command", "key"),
    [
        ("npx netlify-cli deploy --prod --dir build", "deploy:netlify-deploy-prod-dir-build"),
        ("npx vercel-cli@latest deploy --prod", "deploy:vercel-deploy-prod"),
        ("npx @railway/cli up --service api", "deploy:railway-up-service-api"),
        ("bunx firebase-cli deploy --only hosting", "deploy:firebase-deploy-only-hosting"),
        ("pnpm dlx netlify-cli deploy --prod", "deploy:netlify-deploy-prod"),
        ("yarn dlx @railway/cli up", "deploy:railway-up"),
    ],
)
def test_a_cli_package_run_by_npx_is_its_tool(command: str, key: str) -> None:
    found = _candidate(command)
    assert found is not None and found.key == key


def test_npx_of_a_cli_package_that_only_reads_is_nothing() -> None:
    assert _candidate("npx netlify-cli status") is None
    assert _candidate("npx netlify-cli deploy --prod --dry-run") is None


@pytest.mark.parametrize(
    ("command", "key"),
    [
        ("yarn workspace @shop/storefront build", "build:yarn-build-workspace-shop-storefront"),
        ("yarn workspace billing test --ci", "test:yarn-test-ci-workspace-billing"),
        ("pnpm --filter @shop/admin build", "build:pnpm-build-filter-shop-admin"),
        ("pnpm -F billing run test", "test:pnpm-run-test-f-billing"),
        ("npm -w packages/admin run build", "build:npm-run-build-w-packages-admin"),
        ("npm --workspace packages/api test", "test:npm-test-workspace-packages-api"),
        ("yarn workspaces foreach -A --topological run build", "build:yarn-run-build-workspaces"),
    ],
)
def test_a_workspace_selector_comes_before_the_command(command: str, key: str) -> None:
    found = _candidate(command)
    assert found is not None and found.kind == "procedure" and found.key == key


@pytest.mark.parametrize(
    "command", ["yarn workspace @shop/storefront add lodash", "pnpm --filter admin install", "npm -w api ls"]
)
def test_a_workspace_install_or_read_is_nothing(command: str) -> None:
    assert _candidate(command) is None


@pytest.mark.parametrize(
    "command",
    [
        "dotnet test tests\\Billing.Tests\\Billing.Tests.csproj --no-restore -c Release",
        'dotnet test .\\src\\Shop.Tests\\Shop.Tests.csproj --filter "Category=Unit" --logger trx',
        'dotnet test C:\\work\\Ledger\\tests\\Ledger.Tests.csproj --collect "XPlat Code Coverage" -v q',
    ],
)
def test_dotnet_test_of_a_windows_project_path(command: str) -> None:
    """The project path is spelt with forward slashes (the same path to dotnet), which the
    no-store rule does not take for a high-entropy token."""
    found = _candidate(command)
    assert found is not None and found.kind == "procedure" and found.key.startswith("test:")
    assert "\\" not in found.body and ".csproj" in found.body and not nostore.scan(found.body)


def test_only_project_paths_are_respelt() -> None:
    line = "msbuild .\\src\\Shop.sln /t:Build & .\\tools\\sign.bat out\\Shop.dll"
    assert (
        commands.project_path_form(line)
        == "msbuild ./src/Shop.sln /t:Build & .\\tools\\sign.bat out/Shop.dll"
    )


@pytest.mark.parametrize(
    ("command", "host"),
    [
        ('rsync -avz -e "ssh -p 2222" backup@vault.example.net:/srv/dumps/ ./dumps/', "vault.example.net"),
        ("rsync -e 'ssh -i ~/.ssh/ops' --progress ops@files.internal:/data/report.csv .", "files.internal"),
        ("rsync -az --rsh 'ssh -p 2200' db7.corp.example:/var/lib/exports ./exports", "db7.corp.example"),
    ],
)
def test_rsync_from_a_remote_over_ssh_is_a_connection(command: str, host: str) -> None:
    found = _candidate(command)
    assert found is not None and found.key == f"connect:{host.replace('.', '-')}"
    assert not nostore.scan(found.body)


@pytest.mark.parametrize(
    "command",
    [
        "helm upgrade --install api ./chart --version 1.4.2",
        "octo deploy-release --version 2.0.1 --deployto Staging",
    ],
)
def test_a_version_flag_with_a_value_is_no_version_query(command: str) -> None:
    found = _candidate(command)
    assert found is not None and found.key.startswith("deploy:")


@pytest.mark.parametrize("command", ["helm --version", "terraform --version", "octo --version --verbose"])
def test_a_version_flag_alone_is_a_version_query(command: str) -> None:
    assert _candidate(command) is None


def test_rsync_to_a_remote_over_ssh_stays_a_deploy() -> None:
    found = _candidate('rsync -avz -e "ssh -p 2222" ./site/ web@www.example.net:/var/www/')
    assert found is not None and found.key == "deploy:www-example-net"


@pytest.mark.parametrize(
    "text",
    [
        "It's mandatory to run the schema linter before merging.",
        "It is mandatory to add a changelog entry.",
        "For this project, commit messages follow Conventional Commits.",
        "In this repository, branch names follow the JIRA-123-summary convention.",
        "Our release tags follow semver.",
        "Squash your commits before merging, every single time.",
        "Tag the release commit after the build passes, without fail.",
        "Environment secrets belong in the vault. Don't commit them.",
        "Integration tests belong in tests/integration, never next to the code.",
        "Our fixtures belong in tests/data. Do not inline them.",
        "It's compulsory for all PRs to have a linked issue.",
        "Commit messages follow the Conventional Commits spec in this project.",
        "All Python code follows PEP 8.",
        "We follow semantic versioning for this project.",
        "Config belongs in config/settings.toml, never in code.",
    ],
)
def test_statements_of_policy_are_rules(text: str) -> None:
    assert _rule(text)


@pytest.mark.parametrize(
    "text",
    [
        "Push the hotfix now.",
        "Just this once, skip the integration tests.",
        "It's mandatory to submit the expense report by Friday.",
        "It's mandatory that I attend the offsite.",
        "The report follows the template you sent.",
        "That migration follows the usual pattern.",
        "The next step follows from that.",
        "This file belongs in the trash.",
        "The keys belong to the ops team.",
        "Squash your commits before merging.",
        "It's required for me to sign the form.",
        "We follow up with the vendor next week.",
        "We follow the plan you sent.",
        "The cake belongs in the fridge. Don't leave it out.",
        "My bike belongs in the garage, not in the hall.",
        "This follows from the spec.",
    ],
)
def test_one_off_requests_and_statements_of_fact_are_not(text: str) -> None:
    assert not _rule(text)
