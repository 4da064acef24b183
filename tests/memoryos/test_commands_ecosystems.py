"""Commands of tools no table names, judged by their shape (memoryos.policies.commands_ecosystems):
the verbs of a subcommand path, a read verb anywhere in it, an upload into an object store, a
database URL, a script in a test folder, a converging verb aimed at production; the ecosystem
families whose verbs say nothing (flashers, migration tools, workflow engines, R/Julia/MATLAB
expressions, game engines); and the credential shapes those new candidates could carry. Written
from what each tool does, not from any corpus line (the tools here are invented where the point is
that nobody knows them). Each family has its reads, rehearsals and failures beside it."""

from __future__ import annotations

import pytest

from memoryos.policies import commands
from memoryos.policies.capture import Event, classify


def _kind(command: str) -> str | None:
    return commands.command_kind(command)


def _stored(command: str, exit_status: int = 0) -> bool:
    return classify(Event("command", command=command, exit_status=exit_status)) is not None


class TestAnUnknownToolByItsVerbs:
    @pytest.mark.parametrize(
        ("command", "kind"),
        [
            ("zorbactl deploy --env staging", "deploy"),
            ("zorbactl app rollout restart web", "deploy"),
            ("zorbactl bundle deploy -t prod", "deploy"),  # the most telling verb of the path
            ("zorbactl promote build-42 --to production", "deploy"),
            ("zorbactl release 2.3.0", "publish"),
            ("zorbactl hex.publish", "publish"),
            ("zorbactl artifacts upload dist/app.tgz", "publish"),
            ("zorbactl push registry.example.com/team/app:1.4", "publish"),
            ("zorbactl login --sso", "auth"),
            ("zorbactl ssh web-1", "auth"),
            ("zorbactl test --suite smoke", "test"),
            ("zorbactl BuildCookRun -platform=Linux", "build"),
            ("zorbactl compile src/", "build"),
            ("west flash", "deploy"),
            ("idf.py -p /dev/ttyUSB0 flash", "deploy"),
            ("esptool.py --chip esp32 write_flash 0x1000 firmware.bin", "deploy"),
            ("cargo release minor --execute", "publish"),
            ("sf project deploy start --target-org prod", "deploy"),
            ("python setup.py upload", "publish"),
        ],
    )
    def test_the_first_verbs_of_its_path_say_what_it_does(self, command: str, kind: str) -> None:
        assert _kind(command) == kind

    @pytest.mark.parametrize(
        "command",
        [
            "zorbactl deploy status",
            "zorbactl deploy --help",
            "zorbactl deploy --dry-run",
            "zorbactl publish --preview",
            "zorbactl releases list",
            "zorbactl list-deployments",
            "zorbactl describe-release v2",
            "zorbactl get-deployment api",
            "zorbactl apps:list",
            "zorbactl bundle validate -t prod",
            "zorbactl install deploy-helper",
            "zorbactl add deploy-helper",
            "zorbactl logout",
            "zorbactl init",
            "zorbactl version",
            "zorbactl --preset release",  # a flag's value, not a verb
            "zorbactl publishToLocal",
            "zorbactl dry-build",
            "gcloud deploy releases list --delivery-pipeline=web",
            "kamal app logs",
            "dokku logs api",
            "heroku releases:info",
            "git push origin main",
            "hg push",
            "echo deploy",
            "grep -rn deploy logs/",
            "brew install deploy",
        ],
    )
    def test_its_reads_stops_rehearsals_and_other_peoples_words_are_not(self, command: str) -> None:
        assert _kind(command) is None

    def test_a_login_after_global_options_whose_values_no_table_knows(self) -> None:
        assert _kind("p4 -p ssl:perforce.example.com:1666 -u bob login") == "auth"
        assert _kind("zorbactl --server https://api.example.com login") == "auth"
        assert _kind("npm install login-helper") is None

    def test_a_read_verb_that_names_what_runs_is_not_a_read(self) -> None:
        assert _kind("bolt plan run app::upgrade -t webservers") == "deploy"

    def test_a_name_after_an_action_is_not_read_as_a_verb(self) -> None:
        # `search` is a release name here, not a read
        assert _kind("helm upgrade --install search ./charts/search -n search") == "deploy"
        assert _kind("redis-cli -h cache.internal info") == "db_connect"  # a database shell's command

    def test_a_failed_or_unconfirmed_run_is_not_stored(self) -> None:
        assert _stored("zorbactl deploy --env prod")
        assert not _stored("zorbactl deploy --env prod", exit_status=1)
        assert classify(Event("command", command="zorbactl deploy --env prod")) is None


class TestShapes:
    @pytest.mark.parametrize(
        ("command", "kind"),
        [
            ("s5cmd cp dist/ s3://www.example.org/", "deploy"),
            ("azcopy copy ./public https://acct.blob.core.windows.net/web --recursive", "deploy"),
            ("s3cmd sync ./dist s3://site-bucket", "deploy"),
            ("databricks fs cp build/lib.whl dbfs:/libs/", "deploy"),
            ("skopeo copy docker-archive:img.tar docker://ghcr.io/acme/app:1", "deploy"),
            ("usql postgres://db.internal/app", "db_connect"),
            ("zorbasql --uri mongodb+srv://cluster0.example.net/app", "db_connect"),
            ("./tests/run.sh --fast", "test"),
            ("bin/test", "test"),
            ("julia --project test/runtests.jl", "test"),
            ("Rscript tests/testthat.R", "test"),
            ("zorbactl up --env production", "deploy"),
            ("zorbactl sync production", "deploy"),
            ("php artisan migrate --force", "deploy"),
            ("./build/engine_tests --gtest_filter=Net.*", "test"),
            ("zorbarun --junitxml out.xml", "test"),
            ("zorbasql --host db.internal --user app --database ledger", "db_connect"),
            ("crane copy nginx:1.27 ghcr.io/acme/nginx:1.27", "publish"),
        ],
    )
    def test_a_destination_a_script_folder_or_a_production_target_says_it(
        self, command: str, kind: str
    ) -> None:
        assert _kind(command) == kind

    @pytest.mark.parametrize(
        "command",
        [
            "s5cmd cp s3://www.example.org/index.html ./",  # a download
            "s5cmd ls s3://www.example.org/",
            "azcopy list https://acct.blob.core.windows.net/web",
            "heroku config:set DATABASE_URL=postgres://db.internal/app",  # a setting, not a client
            "export DATABASE_URL=postgres://db.internal/app",
            "python scripts/report.py",
            "zorbactl up",  # a local stack, no production named
            "php artisan migrate",  # a developer's own database
            "flask run --env production",
            "npm install --production",
            "zorbactl deploy --list",
            "zorbactl release --status",
            "zorbasql --host db.internal --user app",  # no database named
            "rsync -a -h -u -d src/ dst/",  # a human, an update and a directory flag
            "ansible-playbook site.yml --list-hosts",
            "ansible-playbook site.yml --syntax-check",
            "test -f build/done",
            "crane copy ghcr.io/acme/nginx:1.27",
        ],
    )
    def test_without_the_shape_or_the_target_it_is_not(self, command: str) -> None:
        assert _kind(command) is None


class TestEcosystemFamilies:
    @pytest.mark.parametrize(
        ("command", "kind"),
        [
            ("avrdude -c usbasp -p m328p -U flash:w:main.hex", "deploy"),
            ("nrfjprog --program build/zephyr/zephyr.hex --chiperase --reset", "deploy"),
            ("openocd -f board/stm32f4discovery.cfg -c 'program build/fw.elf verify reset exit'", "deploy"),
            ("adb install -r app-release.apk", "deploy"),
            ("lftp -e 'mirror -R dist /www; quit' sftp://deploy@host", "deploy"),
            ("liquibase update", "deploy"),
            ("flyway migrate", "deploy"),
            ("alembic upgrade head", "deploy"),
            ("dotnet ef database update", "deploy"),
            ("prisma migrate deploy", "deploy"),
            ("pg_dump -h db.internal -U app app", "db_connect"),
            ("mongodump --uri mongodb://db1:27017/app", "db_connect"),
            ("snakemake --cores 8 --use-conda", "build"),
            ("nextflow run nf-core/rnaseq -profile docker", "build"),
            ("dbt run --target prod", "build"),
            ("dotnet pack -c Release", "build"),
            ("R CMD build mypkg", "build"),
            ("Rscript -e 'rsconnect::deployApp(\"app\")'", "deploy"),
            ("matlab -batch \"runtests('tests')\"", "test"),
            ("nix flake check", "test"),
            ("soda scan -d warehouse checks.yml", "test"),
            ("ansible all -i inventory -m ping", "auth"),
            ("nmcli con up id office-vpn", "auth"),
            ("xfreerdp /v:jump01 /u:admin", "auth"),
            ("nixos-rebuild switch --flake .#web", "deploy"),
            ("home-manager switch", "deploy"),
            ("gcloud run services update api --image gcr.io/p/api:2", "deploy"),
            ("bazel run //deploy:push", "deploy"),
            ("gh workflow run deploy.yml -f env=prod", "deploy"),
            ("semantic-release", "publish"),
            ("steamcmd +login builder +run_app_build ../scripts/app.vdf +quit", "publish"),
            ("Unity -batchmode -quit -projectPath . -runTests", "test"),
            ("clojure -T:build jar", "build"),
            ('sbt "project api" test', "test"),
            ("mvn flyway:migrate", "deploy"),
            ("jboss-cli.sh --connect --command='deploy target/app.war --force'", "deploy"),
            ("UnrealBuildTool.exe Game Win64 Shipping", "build"),
            ("conan create . --build=missing", "build"),
            ("docker service update --image ghcr.io/acme/web:2 web", "deploy"),
            ("git ftp push", "deploy"),
            ("sshpass -e ssh deploy@web1.example.net", "auth"),
            ("ssh-copy-id deploy@web1.example.net", "auth"),
            ("aws-azure-login --profile prod", "auth"),
            ("mysqladmin -h db.internal ping", "db_connect"),
            ("elm make src/Main.elm --optimize", "build"),
            ("latexmk -pdf paper.tex", "build"),
            ("fpm -s dir -t deb -n app .", "build"),
            ("dpkg-deb --build pkg", "build"),
            ("dput ppa:acme/tools tool_1.0_source.changes", "deploy"),
            ("docker compose -f docker-compose.prod.yml up -d --build", "deploy"),
        ],
    )
    def test_families_whose_verbs_say_nothing(self, command: str, kind: str) -> None:
        assert _kind(command) == kind

    @pytest.mark.parametrize(
        "command",
        [
            "esptool.py chip_id",
            "snakemake -n",
            "nextflow log",
            "dbt ls",
            "liquibase status",
            "flyway info",
            "alembic current",
            "prisma migrate status",
            "pg_dump --version",
            "nixos-rebuild dry-build",
            "nix copy --from https://cache.nixos.org ./result",
            "bazel run //tools:format",
            "gh workflow list",
            "gh workflow view deploy.yml",
            "kubectl set image deploy/api api=x:1 --dry-run=client",
            "semantic-release --dry-run",
            "steamcmd +login anonymous +app_update 90 +quit",
            "adb devices",
            "soda --version",
            "p4 submit -d 'fix deploy'",
            "docker service ls",
            "docker compose -f docker-compose.dev.yml up -d",
            "docker compose up -d",
            "docker compose -f compose.prod.yml config",
            "dpkg-deb --info pkg.deb",
            "jboss-cli.sh --connect --command=':read-resource'",
        ],
    )
    def test_their_reads_and_rehearsals_are_not(self, command: str) -> None:
        assert _kind(command) is None


class TestCredentialsTheNewCandidatesCouldCarry:
    @pytest.mark.parametrize(
        "command",
        [
            "zorbactl login -u bob -p Hunter2pass",
            "steamcmd +login builder Spr1ngBuild24 +run_app_build app.vdf +quit",
            "xfreerdp /u:admin /p:Winter2024! /v:jump01",
            "redis-cli -h cache.internal AUTH s3cr3tpass",
            "smbclient //fs/share -U bob%Winter2024 -c 'put a'",
            "lftp -u bob,Winter2024 -e 'mirror -R dist /www' sftp://host",
            "zorbactl deploy --key 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
            "zorbactl push --auth abc123def456",
            "s3cmd --secret_key abc123secretvalue put index.html s3://site/",
            "ansible-playbook site.yml -e vault_pw=Winter2024",
            "net use Z: //fs01/share /user:CORP/bob Winter2024!",
            "codecov upload-process -t 3f2504e0-4f89-11d3-9a0c-0305e82c3301",
            "zorbactl login 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
            "sshpass -p hunter2pass ssh deploy@web1.example.net",
        ],
    )
    def test_a_secret_in_the_line_keeps_it_out(self, command: str) -> None:
        assert commands.secret_reason(command) is not None
        assert not _stored(command)

    @pytest.mark.parametrize(
        "command",
        [
            "msbuild Portal.sln /p:Configuration=Release",
            "zorbactl connect -h db.internal -p 5432",
            "rsync -az -e 'ssh -p 2222' logs@ingest.lan:/var/log/ ./logs/",
            "zorbactl deploy --key-file keys/deploy.pem",
            "docker login registry-1.docker.io",
            "mariadb -h galera2.example.net -u report -p shop",  # a lone -p prompts
            "vault login -method=oidc -path=okta role=dev",
        ],
    )
    def test_ports_files_prompts_and_references_are_not_secrets(self, command: str) -> None:
        assert commands.secret_reason(command) is None
        assert _stored(command)

    def test_a_bare_project_file_is_stored_as_a_path(self) -> None:
        command = "xcodebuild -workspace Shop.xcworkspace -scheme Shop test"
        found = classify(Event("command", command=command, exit_status=0))
        assert found is not None and "./Shop.xcworkspace" in found.body
