"""Raw activity-log commands, by family, as the classifier of memoryos.policies.commands must judge
them when the host gives no event type. Written from what each ecosystem's tools do (PowerShell,
cmd, Windows tools, PaaS, package managers, build and test runners, SSO, PuTTY, vendor database
shells), not from any corpus: none of these lines is in bench/corpora. Each family has positives,
and the negatives beside them are the reads, rehearsals and credential-carrying lines of the same
tools, which must never become candidates."""

from __future__ import annotations

import pytest

from memoryos.policies import commands, nostore
from memoryos.policies.capture import Candidate, Event, classify


def _candidate(command: str, exit_status: int = 0) -> Candidate | None:
    return classify(Event("command", command=command, exit_status=exit_status))


def _kind(command: str) -> str | None:
    found = _candidate(command)
    return None if found is None else found.kind


CAPABILITY, PROCEDURE = "capability", "procedure"


class TestPowerShell:
    @pytest.mark.parametrize(
        ("command", "kind"),
        [
            ("Connect-AzAccount -Tenant 11111111-2222-3333-4444-555555555555", CAPABILITY),
            ('Connect-MgGraph -Scopes "User.Read.All"', CAPABILITY),
            ("Connect-VIServer -Server vcenter01.corp.local", CAPABILITY),
            ("Login-AzAccount", CAPABILITY),
            ("Enter-PSSession -ComputerName web01", CAPABILITY),
            ("Publish-Module -Name Contoso.Tools -NuGetApiKey $env:PSGALLERY_KEY", CAPABILITY),
            ("Publish-PSResource -Path ./out/Contoso.Tools -Repository PSGallery", CAPABILITY),
            (
                "Publish-AzWebApp -ResourceGroupName rg-web -Name contoso-web -ArchivePath ./site.zip",
                CAPABILITY,
            ),
            ("New-AzResourceGroupDeployment -ResourceGroupName rg-app -TemplateFile main.bicep", CAPABILITY),
            ('Invoke-Sqlcmd -ServerInstance sql01.corp.local -Database Sales -Query "SELECT 1"', CAPABILITY),
            ("Invoke-DbaQuery -SqlInstance sql02 -Query 'SELECT @@VERSION'", CAPABILITY),
            ("Invoke-Pester -Path ./tests -CI", PROCEDURE),
            ("Invoke-Build Test", PROCEDURE),
            ("Invoke-psake -taskList Deploy", CAPABILITY),
            ("pwsh -NoProfile -File ./build.ps1", PROCEDURE),
            ("powershell -ExecutionPolicy Bypass -File .\\deploy.ps1 -Environment prod", CAPABILITY),
        ],
    )
    def test_verb_noun_cmdlets_by_meaning(self, command: str, kind: str) -> None:
        assert _kind(command) == kind

    @pytest.mark.parametrize(
        "command",
        [
            "Get-ChildItem -Recurse",
            "Get-AzWebApp -ResourceGroupName rg-web",
            "Test-NetConnection sql01 -Port 1433",
            "Set-Location C:\\src\\contoso",
            "Import-Module Az.Accounts",
            "Install-Module Az -Scope CurrentUser",
            "Publish-Module -Name Contoso.Tools -WhatIf",
        ],
    )
    def test_reads_installs_and_what_if_are_not_candidates(self, command: str) -> None:
        assert _candidate(command) is None

    def test_what_foreach_object_runs_is_judged(self) -> None:
        line = "Get-ChildItem *.nupkg | ForEach-Object { dotnet nuget push $_.FullName --source nuget.org }"
        assert _kind(line) == CAPABILITY
        assert _candidate("Get-ChildItem *.log | % { Write-Host $_.Name }") is None

    @pytest.mark.parametrize("command", ["cd C:\\src\\contoso & msbuild Contoso.sln /t:Build"])
    def test_a_lone_ampersand_separates_commands(self, command: str) -> None:
        assert _kind(command) == PROCEDURE

    @pytest.mark.parametrize(
        "command",
        [
            "Publish-Module -Name Contoso.Tools -NuGetApiKey oy2kx7qkm3tq9wz4yb8f1cvh6nd2rj5slp0aeu",
            "Invoke-Sqlcmd -ServerInstance sql01 -Username sa -Password 'Pa55w0rd!' -Query 'SELECT 1'",
            "Connect-AzAccount -Credential (New-Object PSCredential('app', "
            "(ConvertTo-SecureString 'Sup3r!Pw' -AsPlainText -Force)))",
        ],
    )
    def test_a_cmdlet_given_a_secret_is_refused(self, command: str) -> None:
        assert _candidate(command) is None


class TestWindowsTools:
    @pytest.mark.parametrize(
        ("command", "kind"),
        [
            (
                '"C:\\Program Files\\Microsoft Visual Studio\\2022\\Enterprise\\MSBuild\\Current\\Bin\\'
                'MSBuild.exe" Contoso.sln /p:Configuration=Release /m',
                PROCEDURE,
            ),
            (
                '& "C:\\Program Files\\dotnet\\dotnet.exe" test .\\Contoso.Tests\\Contoso.Tests.csproj',
                PROCEDURE,
            ),
            ('"C:\\Tools\\TestPlatform\\vstest.console.exe" bin\\Release\\Contoso.Tests.dll', PROCEDURE),
            (
                "C:\\tools\\nuget.exe push .\\out\\Contoso.1.2.0.nupkg -Source nuget.org -ApiKey %NUGET_KEY%",
                CAPABILITY,
            ),
            (
                '"C:\\Program Files\\Microsoft SQL Server\\160\\DAC\\bin\\SqlPackage.exe" /Action:Publish '
                "/SourceFile:Db.dacpac /TargetServerName:sql01",
                CAPABILITY,
            ),
            ('"C:\\Program Files\\SQL\\Binn\\SQLCMD.EXE" -S tcp:sql01,1433 -d Sales -E', CAPABILITY),
            ("msdeploy.exe -verb:sync -source:package=site.zip -dest:auto,computerName=web01", CAPABILITY),
            ("robocopy dist \\\\web01\\wwwroot\\contoso /MIR", CAPABILITY),
            ('cmd /c "npm run build"', PROCEDURE),
            ("devenv.exe Contoso.sln /Build Release", PROCEDURE),
            ("mvnw.cmd -B verify", PROCEDURE),
            ("mstsc /v:jump01.corp.local", CAPABILITY),
            (".\\test.bat", PROCEDURE),
            ('"C:\\Program Files (x86)\\WinSCP\\WinSCP.com" /script=deploy.txt', CAPABILITY),
            ('"C:\\Program Files\\Git\\bin\\bash.exe" -c "./scripts/deploy.sh prod"', CAPABILITY),
            ("C:\\Python312\\python.exe -m pytest tests", PROCEDURE),
            ('powershell.exe -NoProfile -Command "Invoke-Pester -CI"', PROCEDURE),
        ],
    )
    def test_quoted_paths_and_exe_names_are_the_tool(self, command: str, kind: str) -> None:
        assert _kind(command) == kind

    @pytest.mark.parametrize(
        "command",
        ['"C:\\Program Files\\Notepad++\\notepad++.exe" README.md', "explorer.exe .", "cd C:\\src && dir"],
    )
    def test_editors_and_listings_are_not(self, command: str) -> None:
        assert _candidate(command) is None


class TestPaaSPushes:
    @pytest.mark.parametrize(
        "command",
        [
            "git push heroku main",
            "git push -f dokku-prod HEAD:main",
            "git push azure master",
            "git push scalingo master",
            "git push https://contoso-web.scm.azurewebsites.net:443/contoso-web.git main",
            "git subtree push --prefix dist heroku main",
            "cf push contoso-api -f manifest.yml",
            "cf7 push -p target/app.jar contoso-billing",
            "cf blue-green-deploy contoso-api",
            "ibmcloud cf push contoso-web",
            "az storage blob upload-batch -d '$web' -s dist --account-name contosoweb",
        ],
    )
    def test_a_push_to_a_deploy_target_is_a_deploy(self, command: str) -> None:
        found = _candidate(command)
        assert found is not None and found.key.startswith("deploy:")

    @pytest.mark.parametrize(
        "command",
        [
            "git push origin main",
            "git push -u origin staging-fixes",
            "git push --dry-run heroku main",
            "git pull heroku main",
            "cf apps",
            "cf logs contoso-api --recent",
            "az deployment group what-if -g rg -f main.bicep",
            "az deployment group list -g rg",
        ],
    )
    def test_origin_pushes_reads_and_what_ifs_are_not(self, command: str) -> None:
        assert _candidate(command) is None

    def test_a_push_with_a_token_in_the_url_is_refused(self) -> None:
        assert _candidate("git push https://deploy:Xq9vLm2Pw7@git.heroku.com/contoso.git main") is None


class TestWrappedPublishes:
    @pytest.mark.parametrize(
        "command",
        [
            "yarn npm publish --access public",
            "pnpm -r publish --no-git-checks",
            "pnpm --filter @contoso/ui publish",
            "yarn workspace @contoso/ui npm publish",
            "npx lerna publish from-package --yes",
            "npx changeset publish",
            "cargo workspaces publish --from-git",
            "flutter pub publish --force",
            "pod trunk push Contoso.podspec",
            "mix hex.publish --yes",
            "docker image push registry.example.com/contoso/api:1.4.0",
        ],
    )
    def test_a_publish_word_after_the_wrapper_is_a_publish(self, command: str) -> None:
        found = _candidate(command)
        assert found is not None and found.key.startswith("publish:")

    @pytest.mark.parametrize(
        "command",
        ["npm publish --dry-run", "cargo publish --dry-run", "npm install publish", "yarn add login-form"],
    )
    def test_rehearsals_and_package_names_are_not(self, command: str) -> None:
        assert _candidate(command) is None

    def test_an_otp_on_the_line_is_refused(self) -> None:
        assert _candidate("npm publish --otp 482913") is None

    def test_dotnet_publish_is_a_build_not_a_release(self) -> None:
        assert _kind("dotnet publish -c Release -o out") == PROCEDURE
        assert _kind("dotnet publish -c Release /p:PublishProfile=AzureProd") == CAPABILITY


class TestBuildsThroughWrappers:
    @pytest.mark.parametrize(
        "command",
        [
            "docker compose run --rm builder make build",
            'docker run --rm -v "$PWD":/src -w /src golang:1.22 go build ./...',
            "docker exec -it ci-runner npm run build",
            "docker compose run --rm web bundle exec rake assets:precompile",
            "nix develop -c cargo build --release",
            "devbox run -- make build",
            "./mvnw -B clean package",
            "pnpm turbo build",
            "yarn tsc -b",
            "timeout 900 ./gradlew assembleRelease",
            "docker compose run --rm app sh -c 'npm ci && npm run build'",
        ],
    )
    def test_the_wrapped_build_is_a_build(self, command: str) -> None:
        assert _kind(command) == PROCEDURE

    @pytest.mark.parametrize(
        "command",
        [
            "docker compose run --rm app",
            "docker run -d -p 8080:80 nginx",
            "docker exec -it api ls /app",
            "make -n deploy",
            "mvn dependency:tree",
            "./gradlew publishToMavenLocal",
        ],
    )
    def test_a_started_container_a_listing_or_a_local_install_is_not(self, command: str) -> None:
        assert _candidate(command) is None

    def test_secrets_runners_run_what_follows_the_double_dash(self) -> None:
        assert _kind("op run --env-file=.env -- npm run deploy") == CAPABILITY
        assert _kind("aws-vault exec prod -- terraform apply -auto-approve") == CAPABILITY


class TestTestRunners:
    @pytest.mark.parametrize(
        "command",
        [
            "cargo nextest run",
            "gotestsum --format testname -- ./...",
            "python manage.py test",
            "bin/rails test",
            "php vendor/bin/phpunit",
            "vendor/bin/pest",
            "php artisan test --parallel",
            "dotnet vstest Contoso.Tests.dll",
            "mix test --cover",
            "rebar3 eunit",
            "lein test",
            "clojure -X:test",
            "sbt testOnly com.contoso.*",
            "deno test --allow-net",
            "coverage run -m pytest",
            "zig build test",
            "dune test",
            "prove -lr t",
            "busted",
            "robot tests/acceptance",
            "newman run collection.json -e staging.json",
            "molecule test",
            "xcodebuild -scheme App -destination 'platform=iOS Simulator,name=iPhone 15' test",
            "docker compose exec -T api python manage.py test",
            "kubectl exec -it deploy/api -- pytest -q",
            "node --test",
            "Rscript -e 'devtools::test()'",
            "pytest-3 -q",
            "ansible-test units --python 3.12",
            "docker compose run --rm app sh -c 'pip install -e . && pytest'",
        ],
    )
    def test_the_runner_is_a_test(self, command: str) -> None:
        assert _kind(command) == PROCEDURE

    @pytest.mark.parametrize(
        "command",
        ["pytest --collect-only -q", "pytest --version", "jest --help", "cargo check", "go vet ./..."],
    )
    def test_listing_asking_or_linting_is_not_a_test_pass(self, command: str) -> None:
        assert _candidate(command) is None

    def test_a_failed_run_is_not(self) -> None:
        assert classify(Event("command", command="cargo nextest run", exit_status=101)) is None


class TestLogins:
    @pytest.mark.parametrize(
        "command",
        [
            "saml2aws login --profile prod",
            "gimme-aws-creds --profile prod",
            "tsh login --proxy=teleport.example.com --user=alice",
            "cf login -a https://api.cf.example.com --sso",
            "sf org login web --alias prod",
            "sfdx auth:web:login -a prod",
            "op signin",
            "kubectl oidc-login setup --oidc-issuer-url=https://issuer.example.com",
            "doctl auth init --context prod",
            "aws ecr get-login-password --region eu-west-1 | docker login --username AWS --password-stdin "
            "123456789012.dkr.ecr.eu-west-1.amazonaws.com",
        ],
    )
    def test_sso_and_cli_logins_are_connections(self, command: str) -> None:
        found = _candidate(command)
        assert found is not None and found.key.startswith("connect:")

    def test_a_kerberos_principal_is_written_without_its_email_shape(self) -> None:
        found = _candidate("kinit jdoe@CORP.EXAMPLE.COM")
        assert found is not None and found.key == "connect:corp-example-com"
        assert "`kinit jdoe`" in found.body and not nostore.scan(found.body)

    def test_a_keytab_login_names_its_realm(self) -> None:
        found = _candidate("kinit -kt /etc/krb5/svc.keytab svc/app01.corp.example.com@CORP.EXAMPLE.COM")
        assert found is not None and found.key == "connect:corp-example-com"

    @pytest.mark.parametrize(
        "command",
        [
            "klist",
            "doctl auth list",
            "git checkout -b login",
            "npm logout",
            "echo 'Kerb3rosPw!' | kinit jdoe@CORP.EXAMPLE.COM",
            'echo "S3cretPW" | docker login -u ci --password-stdin registry.example.com',
            "cf login -a https://api.cf.example.com -u ops -p CfPass123",
            "cf auth ops-user CfPass123",
        ],
    )
    def test_listings_branches_logouts_and_typed_passwords_are_not(self, command: str) -> None:
        assert _candidate(command) is None

    def test_a_piped_reference_is_not_a_secret(self) -> None:
        assert (
            _kind("echo $CI_TOKEN | docker login -u ci --password-stdin registry.example.com") == CAPABILITY
        )


class TestPuTTY:
    @pytest.mark.parametrize(
        ("command", "key", "spelt"),
        [
            (
                '"C:\\Program Files\\PuTTY\\plink.exe" -batch -ssh ops@web01.example.com "uptime"',
                "connect:web01-example-com",
                "-l ops web01.example.com",
            ),
            ("putty.exe -ssh admin@10.20.0.4 -P 2222", "connect:10-20-0-4", "-l admin 10.20.0.4"),
            ("psftp deploy@files.example.com", "connect:files-example-com", "-l deploy files.example.com"),
        ],
    )
    def test_a_putty_login_reaches_its_host(self, command: str, key: str, spelt: str) -> None:
        found = _candidate(command)
        assert found is not None and found.key == key and spelt in found.body
        assert not nostore.scan(found.body)

    def test_pscp_to_a_host_is_a_deploy(self) -> None:
        found = _candidate("pscp -i C:\\keys\\deploy.ppk dist\\site.zip deploy@web02.example.com:/srv/site/")
        assert found is not None and found.key == "deploy:web02-example-com"

    @pytest.mark.parametrize(
        "command",
        [
            "plink -ssh ops@web01 -pw Hunter2Hunter2 uptime",
            "pscp -pw Winter2024! site.zip deploy@web02:/srv/",
        ],
    )
    def test_a_password_on_the_line_is_refused(self, command: str) -> None:
        assert _candidate(command) is None


class TestVendorDatabases:
    @pytest.mark.parametrize(
        "command",
        [
            "sqlplus system@//dbhost.corp.example.com:1521/ORCLPDB1",
            "sqlplus hr@dbhost.example.com",
            "db2 connect to SAMPLE user db2inst1",
            "hdbsql -n hana01:30015 -u SYSTEM",
            "mysqlsh --uri admin@mysql01.example.com:3306 --sql",
            "mysqlsh admin@mysql01.example.com",
            'mongosh "mongodb+srv://cluster0.abcd1.mongodb.net/shop" --username app',
            "cqlsh cass01.example.com 9042",
            "snowsql -a xy12345.eu-west-1 -u etl_user -d ANALYTICS",
            "bq query --use_legacy_sql=false 'SELECT 1'",
            'beeline -u "jdbc:hive2://hive01:10000/default" -n etl',
            'cockroach sql --url "postgresql://root@crdb01:26257/bank?sslmode=verify-full"',
            "clickhouse client --host ch01.example.com",
            "vsql -h vertica01 -U dbadmin -d analytics",
            "heroku pg:psql -a contoso-api",
            "fly postgres connect -a contoso-db",
            "python manage.py dbshell",
        ],
    )
    def test_a_connect_string_is_a_connection(self, command: str) -> None:
        found = _candidate(command)
        assert found is not None and found.key.startswith("connect:")
        assert not nostore.scan(found.body)

    @pytest.mark.parametrize(
        "command",
        [
            "sqlplus scott/tiger@orclpdb1",
            'sqlplus -L "sys/Or4cle_Pw@//db01:1521/ORCL as sysdba"',
            "rman target sys/Manager123@prim",
            "db2 connect to SAMPLE user db2inst1 using Db2Pass99",
            "hdbsql -n hana01:30015 -u SYSTEM -p Manager1",
            "cqlsh cass01 -u cassandra -p Cass4ndra!",
            "mysqlsh root:Sekr1t99@mysql01:3306",
            'beeline -u "jdbc:hive2://hive01:10000/default" -n etl -p Hive77pw',
            "vsql -h vertica01 -U dbadmin -w Vert1caPw",
            "sqlplus -V",
        ],
    )
    def test_a_password_in_the_connect_string_or_a_version_query_is_not(self, command: str) -> None:
        assert _candidate(command) is None

    def test_an_oracle_login_without_a_password_is_no_secret(self) -> None:
        assert commands.secret_reason("sqlplus / as sysdba") is None
        assert commands.secret_reason('sqlplus -L "hr/${HR_PW}@//db01/ORCL"') is None


class TestMoreOfEachFamily:
    @pytest.mark.parametrize(
        ("command", "kind"),
        [
            ("heroku releases:rollback -a contoso", CAPABILITY),
            ("az containerapp update -n api -g rg --image reg/api:2", CAPABILITY),
            ("skaffold run -p prod", CAPABILITY),
            ("envoy run deploy", CAPABILITY),
            ("sbt publishSigned", CAPABILITY),
            ("lein deploy clojars", CAPABILITY),
            ("az acr build -r contosoreg -t api:1 .", PROCEDURE),
            ("mix release", PROCEDURE),
            ("rebar3 release", PROCEDURE),
            ("pip wheel . -w dist", PROCEDURE),
            ("gradle bootJar", PROCEDURE),
            ("sbt assembly", PROCEDURE),
            ("npm t", PROCEDURE),
            ("R CMD check .", PROCEDURE),
            ("scp ops@web1.example.com:/var/log/syslog ./", CAPABILITY),
        ],
    )
    def test_kind(self, command: str, kind: str) -> None:
        assert _kind(command) == kind

    def test_a_download_by_scp_is_a_connection_to_its_source(self) -> None:
        found = _candidate("pscp deploy@web02.example.com:/var/log/app.log .")
        assert found is not None and found.key == "connect:web02-example-com"

    @pytest.mark.parametrize("command", ["tsc --noEmit", "scp a.txt b.txt", "redis-cli --version"])
    def test_type_checks_and_local_copies_are_not(self, command: str) -> None:
        assert _candidate(command) is None


class TestCredentialsOnTheLine:
    @pytest.mark.parametrize(
        "command",
        [
            '$env:PGPASSWORD = "Winter2024!"; psql -h db01 -U app app',
            "sqlcmd -S sql01 -U sa -P Pa55word! -Q 'SELECT 1'",
            "dotnet nuget push x.nupkg -k oy2kx7qkm3tq9wz4yb8f -s nuget.org",
            "poetry publish -u ops -p P0etryPw!",
            "mysqlsh -u root -pSekr1t mysql01",
            "az storage blob upload-batch -d web -s dist --account-key abcdEFGH1234ijklMNOP5678qrstUV==",
            "Invoke-Sqlcmd -ConnectionString 'Server=sql01;User Id=sa;Password=Pa55w0rd!;' -Query 'SELECT 1'",
        ],
    )
    def test_a_literal_secret_is_refused(self, command: str) -> None:
        assert _candidate(command) is None

    @pytest.mark.parametrize(
        "command",
        [
            "sqlcmd -S sql01 -U sa -P $env:SQLPW -Q 'SELECT 1'",
            "dotnet nuget push x.nupkg -k $env:NUGET_KEY -s nuget.org",
            "npm publish --token $NPM_TOKEN",
            "ibmcloud login --apikey @~/.bluemix/apikey.json",
            "Connect-AzAccount -ServicePrincipal -Credential $cred -Tenant contoso",
        ],
    )
    def test_a_reference_to_a_secret_is_no_secret(self, command: str) -> None:
        assert commands.secret_reason(command) is None
        assert _candidate(command) is not None


class TestLoginSubjectsAndSpellings:
    @pytest.mark.parametrize(
        ("command", "key"),
        [
            ("cf login -a https://api.cf.example.com --sso", "connect:api-cf-example-com"),
            ("tsh login --proxy=teleport.example.com --user=alice", "connect:teleport-example-com"),
            ("oc login https://api.ocp.example.com:6443 --web", "connect:api-ocp-example-com"),
            ("Connect-VIServer -Server vcenter01.corp.local", "connect:vcenter01-corp-local"),
            ("kinit -f alice@EXAMPLE.ORG", "connect:example-org"),
        ],
    )
    def test_a_login_is_keyed_by_the_server_or_realm_it_names(self, command: str, key: str) -> None:
        found = _candidate(command)
        assert found is not None and found.key == key

    def test_a_token_given_by_reference_is_spelt_last(self) -> None:
        found = _candidate("oc login --token=$OC_TOKEN --server=https://api.ocp.example.com:6443")
        assert found is not None
        assert "`oc login --server=https://api.ocp.example.com:6443 --token=$OC_TOKEN`" in found.body

    def test_aws_options_move_before_the_service_in_a_login(self) -> None:
        spelt = commands.ssh_login_form("aws ecr get-login-password --region eu-west-1 | docker login x")
        assert spelt == "aws --region eu-west-1 ecr get-login-password | docker login x"


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("docker compose run --rm tests", PROCEDURE),
        ("docker-compose run --rm build", PROCEDURE),
        ("docker compose -f ci.yml up --abort-on-container-exit --exit-code-from e2e", PROCEDURE),
        ("docker compose run --rm app", None),
        ("docker compose up -d", None),
    ],
)
def test_a_compose_service_run_for_its_default_command_is_judged_by_its_name(
    command: str, kind: str | None
) -> None:
    assert _kind(command) == kind


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("okta-awscli --okta-password S3cret", True),
        ("saml2aws login --password=Hunter22x", True),
        ('sqlplus scott/"tiger"@orcl', True),
        ("redis-cli -u redis://:S3cretpw@cache01:6379", True),
        ("isql -v MYDSN ro S3cret", True),
        ("isql -v MYDSN", False),
        ("tool --bypass foo", False),
        ("docker login --password-stdin registry.example.com", False),
        ("vault login -method=oidc --token-file ~/.vault-token", False),
        ("mysql --no-password --host db01", False),
    ],
)
def test_credential_shapes_of_the_new_families(line: str, secret: bool) -> None:
    assert (commands.secret_reason(line) is not None) is secret
