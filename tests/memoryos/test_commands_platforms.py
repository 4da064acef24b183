"""Issue #15, platforms whose CLIs say an action in their own nouns (written from what each tool
does, not from any log line): Salesforce package versions promoted and check-only deploys that run
the org's tests, SQL given to a CLI's query subcommand, WP-CLI and Drush site aliases and their
databases, Intune assignments through Microsoft Graph, installer packagers, IIS application pools,
Subversion release tags, CDK synthesis, release tools named `*-release`, Laravel Mix's production
build, Juju charm refreshes, Test Kitchen and Molecule verification, kdb+ consoles; cache upkeep
and a deploy's report are reads. A deploy whose line logs in with `user@host`, and a login that
names an OAuth client id, are candidates without a person's address or a token's shape; Apple's
uploader's `-p` is a secret. Rules in Arabic and Hebrew; "for this PR" is no standing order, a rule
talked about is no rule. Every positive here is missed by the classifier before these families;
each family has its lookalike negatives."""

from __future__ import annotations

import pytest

from memoryos.policies import commands
from memoryos.policies.capture import Event, classify


def _candidate(command: str, status: int = 0) -> str | None:
    found = classify(Event("command", command=command, exit_status=status))
    return None if found is None else found.kind


def _rule(text: str) -> bool:
    found = classify(Event("instruction", text=text))
    return found is not None and found.kind == "rule"


_CANDIDATE_KIND = {"build": "procedure", "test": "procedure"}
_POSITIVES = [
    ("sf project deploy validate -x package.xml -o uat -l RunSpecifiedTests -t AccountServiceTest", "test"),
    ("sfdx force:source:deploy --checkonly -p force-app --testlevel RunLocalTests -u prod", "test"),
    ("sf project deploy validate -d force-app -o production -l RunAllTestsInOrg", "test"),
    ("sfdx force:package:version:promote -p 04t5e000000AbCdAAK -n", "publish"),
    ('sf package version promote -p "Billing@1.4.0-2" --target-dev-hub devhub', "publish"),
    ('sf data query -q "SELECT Id FROM Opportunity LIMIT 5" -o uat', "db_connect"),
    ('sfdx force:data:soql:query -q "SELECT Name FROM Contact" -u qa', "db_connect"),
    ('sqlite-utils query data.db "select count(*) from runs"', "db_connect"),
    ('aws athena start-query-execution --query-string "SELECT * FROM logs LIMIT 10"', "db_connect"),
    ('wp db query "SELECT ID FROM wp_users LIMIT 3" --path=/srv/www/site', "db_connect"),
    ("wp @live db export /tmp/live.sql", "db_connect"),
    ("wp db export backup.sql", "db_connect"),
    ("drush @stage sql:dump --result-file=../stage.sql", "db_connect"),
    ("drush sql:query 'select count(*) from users'", "db_connect"),
    ('drush sqlq "SELECT uid FROM users_field_data LIMIT 1"', "db_connect"),
    ("wp @prod plugin update woocommerce", "deploy"),
    ("wp @live core update", "deploy"),
    (
        'Invoke-MgGraphRequest -Method POST -Uri "$g/deviceManagement/deviceConfigurations/$id/assign"',
        "deploy",
    ),
    ("New-MgDeviceAppManagementMobileAppAssignment -MobileAppId $appId -BodyParameter $params", "deploy"),
    (
        'az rest --method post --url "$GRAPH/beta/deviceAppManagement/mobileApps/$APP/assign" --body @a.json',
        "deploy",
    ),
    ("appcmd start apppool /apppool.name:Intranet", "deploy"),
    ('Restart-WebAppPool -Name "ShopApi"', "deploy"),
    ("juju refresh postgresql --channel 14/stable", "deploy"),
    ("juju upgrade-charm wordpress", "deploy"),
    ("jpackage --input target/libs --main-jar app.jar --type msi --name Ledger", "build"),
    ("appimagetool AppDir Ledger-x86_64.AppImage", "build"),
    ("makeappx pack /d .\\layout /p .\\out\\Ledger.msix", "build"),
    ("snapcraft pack", "build"),
    ("cdk synth --all", "build"),
    ("npx cdk8s synth", "build"),
    ("yarn production", "build"),
    ("npm run prod", "build"),
    ("IntuneWinAppUtil -c C:\\pkg\\Zoom -s ZoomInstaller.msi -o C:\\out", "build"),
    ("kitchen verify default-ubuntu-2204", "test"),
    ("molecule verify -s default", "test"),
    ("bloom-release --rosdistro jazzy --track jazzy nav_utils", "publish"),
    ('svn cp ^/trunk ^/tags/2.1.0 -m "release 2.1.0"', "publish"),
    (
        'svn copy https://svn.example.org/widget/trunk https://svn.example.org/widget/tags/1.9.2 -m "1.9.2"',
        "publish",
    ),
    ('svn commit -m "Tagging version 4.0.1"', "publish"),
    ("qcon localhost:5010", "db_connect"),
    ("qcon tickhost.internal:5001:analyst", "db_connect"),
    ("openstack stack update -t stack.yaml web", "deploy"),
    ("openstack stack create -t heat/app.yaml --parameter env=prod app", "deploy"),
    ("openstack token issue", "auth"),
]


@pytest.mark.parametrize(("command", "kind"), _POSITIVES)
def test_platform_families_are_recognised(command: str, kind: str) -> None:
    assert commands.command_kind(command) == kind
    assert _candidate(command) == _CANDIDATE_KIND.get(kind, "capability")


@pytest.mark.parametrize(("command", "kind"), _POSITIVES)
def test_a_failure_is_never_a_candidate(command: str, kind: str) -> None:
    assert _candidate(command, status=1) is None


@pytest.mark.parametrize(
    "command",
    [
        "drush cache:rebuild",
        "drush @prod cr",
        "php artisan cache:clear",
        "bin/console cache:clear --env=prod",
        "bin/magento cache:flush",
        "wp cache flush",
        "wp db size",
        "wp db prefix",
        "sf project deploy validate --source-dir force-app --target-org uat --test-level NoTestRun",
        "sf project deploy report --job-id 0Af5e00000AbCdE",
        "sf package version list",
        "sf package version report -p 04t5e000000AbCd",
        "sf data query --help",
        'git commit -m "SELECT fix for reports"',
        "gh api graphql -f query='query { viewer { login } }'",
        'Invoke-MgGraphRequest -Method GET -Uri "$graph/v1.0/deviceAppManagement/mobileApps"',
        'Invoke-MgGraphRequest -Method GET -Uri "$graph/beta/deviceAppManagement/mobileApps/$id/assignments"',
        "appcmd list apppool",
        "appcmd stop apppool /apppool.name:Intranet",
        "lsb_release -a",
        "prepare-release 2.0.0",
        'svn ci -m "Fix typo in readme"',
        "svn cp trunk/readme.txt branches/docs/readme.txt",
        "svn log ^/tags",
        "juju status",
        "kitchen list",
        "cdk diff",
        "makeappx unpack /p app.msix /d out",
        "wp @production plugin list",
        "drush @prod status",
        'Invoke-MgGraphRequest -Method POST -Uri "$graph/v1.0/users/$id/assignLicense" -Body $b',
        "sqlfluff lint --dialect postgres queries/",
        "bloom-generate rosdebian --ros-distro jazzy",
        "lsb_release -cs",
        "git-release",
        "openstack stack list",
        "openstack stack show web",
        "openstack stack delete web --yes",
        "openstack token revoke abc",
    ],
)
def test_their_reads_upkeep_and_lookalikes_are_not_candidates(command: str) -> None:
    assert _candidate(command) is None


def test_a_deploy_that_logs_in_with_user_at_host_is_a_candidate_without_the_address() -> None:
    command = (
        "rsync -az build/ pi@kiosk-07.lan:/srv/kiosk/ && ssh pi@kiosk-07.lan sudo systemctl restart kiosk"
    )
    found = classify(Event("command", command=command, exit_status=0))
    assert found is not None and found.kind == "capability" and found.key.startswith("deploy:")
    assert "ssh -l pi kiosk-07.lan" in found.body and "pi@kiosk-07.lan sudo" not in found.body


def test_a_login_that_names_an_oauth_client_id_is_a_candidate_without_it() -> None:
    command = (
        "sf org login jwt --client-id 3MVG9A2kN8Bl7r5sXc6Tq0Lm --jwt-key-file server.key -o ci@example.org"
    )
    found = classify(Event("command", command=command, exit_status=0))
    assert found is not None and found.kind == "capability"
    assert "3MVG9" not in found.key + found.body and "--client-id <client-id>" in found.body


@pytest.mark.parametrize(
    "command",
    [
        "xcrun altool --upload-app -f Ledger.ipa -t ios -u builds@example.org -p abcd-efgh-ijkl-mnop",
        "xcrun altool --validate-app -f Ledger.ipa -t ios -u builds -p 'Wq8-zz1-Kp3'",
        "iTMSTransporter -m upload -assetFile Ledger.pkg -u builds -p qrst-uvwx-yzab-cdef",
    ],
)
def test_apple_uploaders_password_is_a_secret(command: str) -> None:
    assert commands.secret_reason(command) == "secret:password_flag"
    assert _candidate(command) is None


def test_an_apple_uploaders_keychain_reference_is_not_a_secret() -> None:
    assert commands.secret_reason("xcrun altool --upload-app -f a.ipa -u ci -p @keychain:AC_PASSWORD") is None


@pytest.mark.parametrize(
    "text",
    [
        "لا تدفع أبداً إلى الفرع الرئيسي مباشرة.",
        "استخدم دائماً pnpm في هذا المستودع.",
        "دائماً شغّل الاختبارات قبل الدمج.",
        "من الآن فصاعداً اكتب رسائل الالتزام بالإنجليزية.",
        "لا تحذف أبدا ملفات الترحيل.",
        "אף פעם אל תדחוף ישירות ל-main.",
        "תמיד תריץ את הבדיקות לפני מיזוג.",
        "מעכשיו תכתוב הודעות קומיט באנגלית.",
        "אל תמחק לעולם קבצי מיגרציה.",
    ],
)
def test_arabic_and_hebrew_standing_orders_are_rules(text: str) -> None:
    assert _rule(text)


@pytest.mark.parametrize(
    "text",
    [
        "أنا دائماً أنسى أين السجلات.",
        "دائماً أنسى أين السجلات.",
        "لا تقلق، كل شيء يعمل.",
        "هل نستخدم دائماً نفس الفرع؟",
        "دائماً يفشل هذا الاختبار.",
        "אני תמיד שוכח איפה הלוגים.",
        "אל תדאג, זה עובד.",
        "למה תמיד זה נופל?",
        "Don't bother with the snapshot tests for this PR.",
        "Don't run the e2e suite for this hotfix.",
        "Never squash the commits on this branch, I need them.",
        "The team rule is unclear to me",
        "Our branch policy is confusing.",
        "I don't get the house rule about tags.",
        "That standing rule seems outdated.",
    ],
)
def test_their_facts_one_offs_and_rules_talked_about_are_not(text: str) -> None:
    assert not _rule(text)


@pytest.mark.parametrize(
    "text",
    [
        "Always rebase PRs on main before merging.",
        "In this repo, never commit generated files.",
        "The team rule is: no deploys on Fridays.",
        "Team rule: squash before merge.",
        "Standing rule: never force-push to release branches.",
    ],
)
def test_rules_beside_the_vetoes_stay_rules(text: str) -> None:
    assert _rule(text)
