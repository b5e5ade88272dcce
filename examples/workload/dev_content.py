"""Dev workload: an assistant agent working for Dana Whitfield, a backend
software engineer at Quillwork, a ~12-person invoicing/ledger API startup in
Lisbon.  Day 0 = Monday 5 Jan 2026.  Jan d -> day d-5, Feb d -> 26+d,
Mar d -> 54+d, Apr d -> 85+d, May d -> 115+d, Jun d -> 146+d, Jul d -> 176+d.
"""
from gen import fmt_date, iso_date, is_weekend, NDAYS, day_date


def day_of_month(d):
    return day_date(d).day

# --------------------------------------------------------------------------
# persona: day|domain|facet|key|value|themes|importance|question|also
# --------------------------------------------------------------------------
PEOPLE = r"""
0|people|relationships|tom-buddy|Dana is Tom's onboarding buddy for his first three months at Quillwork.|onboarding|0.6|Who is mentoring the junior engineer who started in January?|
0|people|facts|tom-joined|Tom Becker started on 5 January 2026 as a junior backend engineer; he relocated to Lisbon from Hamburg.|team||Which city did the new junior engineer move here from?|
1|people|facts|marco-role|Marco Rossi leads the backend team and owns the ledger service; he came to Quillwork from Satispay in 2023.|team||Which company did the backend lead work at before joining us?|p:marco-wei-old-colleagues
2|people|preferences|tom-review-style|Tom prefers blunt code review comments with concrete suggestions over open-ended questions.|review|0.7|What kind of feedback does Tom want on his pull requests?|
3|people|facts|tom-peanut-allergy|Tom has a severe peanut allergy and carries an EpiPen; check ingredients whenever ordering team food.|health|0.9|Is there anything to watch out for with the new junior dev when we order lunch for everyone?|
*30-120|people|facts|tom-climbing|Tom bouldered competitively in Hamburg and now climbs at Bloc Lisboa three evenings a week.|sport||What does Tom do after work most evenings?|
*60-140|people|facts|tom-birthday|Tom's birthday is 30 May; he turns 24 this year.|birthday||
8|people|facts|marco-birthday|Marco's birthday is 14 March; he loves dark chocolate, especially the 85% bars from Venchi.|birthday|0.6|When should I get Marco a present, and what would he like?|
*0-60|people|facts|marco-family|Marco's wife Chiara teaches piano; their kids are Luca (6) and Giulia (3).|family||What are the names of Marco's children?|
*20-150|people|facts|marco-turin|Marco grew up in Turin and goes home every August for Ferragosto.|travel||
4|people|preferences|marco-huddles|Marco would rather jump on a quick Slack huddle than schedule a meeting for anything under 15 minutes.|communication||How does Marco like to handle short discussions?|
*10-90|people|facts|marco-band|Marco plays bass in a covers band called The Late Merges; they gig at Musicbox roughly once a month.|music||What instrument does Marco play?|
1|people|facts|priya-role|Priya Natarajan is the product manager for the API platform; she works remotely from London and visits Lisbon once a month.|team||Where is our product manager based?|p:standup-at-ten
*40-120|people|facts|priya-birthday|Priya's birthday is 2 August.|birthday||What day is Priya's birthday?|
5|people|preferences|priya-written-specs|Priya wants every feature to start with a one-page written spec before any design meeting happens.|process|0.7|What does the PM expect before we get together to design something?|
*20-170|people|facts|priya-running|Priya runs half marathons; her best time is 1:52 at the Hackney Half.|sport||
*10-100|people|facts|priya-cat|Priya has a ginger cat called Biscuit who walks across her keyboard during calls.|pets||What's the name of Priya's pet?|
2|people|facts|alice-role|Alice Moreau is the product designer; she works in Figma and owns the dashboard and onboarding flows.|design||
*10-80|people|preferences|alice-loom|Alice prefers design feedback as short Loom videos she can watch async rather than live critique sessions.|feedback||How should I pass my thoughts on Alice's mockups to her?|
*30-150|people|facts|alice-pottery|Alice takes a wheel-throwing pottery class on Wednesday evenings in Intendente.|hobby||What's Alice's weekly evening class?|
*100-170|people|facts|alice-birthday|Alice's birthday is 19 September.|birthday||
*0-90|people|facts|alice-partner|Alice is from Lyon; her partner Camille is a sommelier at a wine bar in Principe Real.|family||What does Alice's partner do for a living?|
1|people|facts|wei-role|Wei Zhang is the SRE; he owns the Terraform code, the EKS clusters and the PagerDuty schedules.|infra||Who looks after our cloud infrastructure-as-code?|
6|people|preferences|wei-no-late-pages|Wei asks not to be paged after 22:00 unless it is a Sev1; otherwise leave a note in #ops for the morning.|oncall|0.8|Can I ring Wei late at night about a minor problem?|
*20-160|people|facts|wei-film-camera|Wei shoots film on an old Pentax K1000 and develops his own black-and-white rolls at home.|hobby||What kind of camera does Wei use?|
*120-175|people|facts|wei-birthday|Wei's birthday is 7 November.|birthday||
*10-120|people|preferences|wei-bubble-tea|Wei's afternoon treat is brown sugar bubble tea with less ice.|food||What should I bring the SRE as a thank-you snack?|
3|people|facts|sofia-role|Sofia Lindqvist is the CEO and co-founder; she ran payments at Klarna before starting Quillwork.|leadership||What was our CEO's job before founding the company?|
6|people|facts|sofia-birthday|Sofia's birthday is 23 January; the team usually chips in for flowers from the stall at Praca das Flores.|birthday|0.5|What do we usually get the CEO for her birthday?|
5|people|preferences|sofia-status-bullets|Sofia likes status updates as three bullet points with numbers, never slides.|communication||How should I format an update for the CEO?|
*30-160|people|facts|sofia-sailing|Sofia sails a Dragon-class keelboat out of Cascais on Sunday mornings.|hobby||What does Sofia do on weekend mornings?|
3|people|facts|kenji-role|Kenji Watanabe is the data engineer; he maintains the dbt models and the analytics warehouse.|data||
*0-60|people|facts|kenji-sourdough|Kenji bakes sourdough every weekend and brings loaves to the office on Mondays.|food||Who brings homemade bread in at the start of the week?|
*40-150|people|facts|kenji-daughter|Kenji's daughter Hana starts primary school in September.|family||
*60-140|people|facts|kenji-birthday|Kenji's birthday is 11 June.|birthday||
2|people|facts|olu-role|Olu Adeyemi is the frontend engineer on the dashboard (React and TypeScript).|team||
*5-60|people|preferences|olu-pairing|Olu likes to pair in the afternoons after 14:00 Lisbon time; his mornings are a deep-work block.|pairing||When is a good slot to work side by side with Olu?|
*10-120|people|facts|olu-chess|Olu plays blitz chess online and is rated around 1900 on Lichess.|hobby||What game is Olu good at?|
*40-85|people|facts|olu-birthday|Olu's birthday is 4 April.|birthday||
4|people|facts|hannah-role|Hannah Kowalski leads customer success and relays customer bugs through #cs-escalations.|support||
*0-40|people|facts|hannah-celiac|Hannah has celiac disease, so team dinners need a proper gluten-free option for her.|health|0.8|Which dietary restriction do we need to plan for with Hannah?|
*20-150|people|facts|hannah-board-games|Hannah hosts a board game night every other Friday; Wingspan and Cascadia are her favourites.|hobby||Which tabletop games does Hannah like?|
*20-50|people|facts|hannah-birthday|Hannah's birthday is 28 February.|birthday||When is Hannah's birthday?|
9|people|facts|raj-security|Raj Mehta is the external security consultant helping with SOC 2; he bills through Northgate Security.|security||Which firm does our security consultant invoice through?|
10|people|preferences|raj-email-only|Raj prefers email to Slack and is only available on Tuesdays and Thursdays.|communication||On which days can I reach the security consultant?|
*0-30|people|facts|lena-people-ops|Lena Fischer runs people ops and hiring part-time, Monday to Wednesday.|hiring||Which days is the person who handles hiring in?|
56|people|facts|diego-joined|Diego Santos joined as a senior backend engineer on 2 March, coming from Farfetch.|team||Who was hired as a senior backend engineer in early March?|
*60-170|people|facts|diego-surf|Diego surfs at Carcavelos before work whenever the swell is good.|hobby||
*60-150|people|relationships|diego-kenji-flatmates|Diego and Kenji used to share a flat in Arroios.|friends||
*0-100|people|relationships|marco-wei-old-colleagues|Marco and Wei worked together at Satispay before Quillwork and are close friends.|friends||Which two colleagues knew each other from a previous job?|
*0-80|family|facts|sam-job|Sam, Dana's partner, is an ICU nurse at Hospital de Santa Maria.|family||Where does Dana's partner work?|
*60-160|family|facts|sam-birthday|Sam's birthday is 9 October.|birthday||
*0-100|family|facts|anniversary|Dana and Sam's anniversary is 17 June; they met at a friend's wedding in Sintra in 2019.|family|0.7|When do Dana and Sam celebrate being a couple?|
*0-60|family|facts|sam-shellfish|Sam is allergic to shellfish.|health|0.8|What should I avoid when booking dinner for Dana's partner?|
2|family|facts|mum-ruth|Dana's mum Ruth lives in Leeds and usually calls on Sunday evenings.|family||
*40-100|family|facts|ruth-birthday|Ruth's birthday is 2 May; she loves gardening books.|birthday||What should Dana send her mother for her birthday?|
*0-70|family|facts|jonah-brother|Dana's brother Jonah is an architect in Berlin.|family||What does Dana's brother do?|
*20-60|family|facts|mia-birthday|Dana's niece Mia, Jonah's daughter, turns five on 21 March and is obsessed with dinosaurs.|birthday||What kind of gift would Dana's niece like?|
1|home|facts|pixel-dog|Pixel is Dana's border collie mix, adopted in 2022; his vet is Dr. Almeida at Clinica Veterinaria da Estrela.|pets||Who is the dog's vet?|
"""

SELF = r"""
0|self|preferences|no-meetings-before-10|Dana keeps mornings before 10:00 free of meetings for focused coding.|schedule|0.8|When shouldn't I book calls for Dana?|
1|self|preferences|small-prs|Dana prefers small pull requests, ideally under 400 changed lines, and splits bigger work into stacked PRs.|review||
3|self|preferences|summary-format|Dana wants meeting summaries as bullet points with an owner and a due date on every action item.|meetings||How does Dana want meeting notes written up?|
*0-60|self|preferences|train-over-plane|Dana prefers the train to flying for any trip under five hours door to door.|travel||How does Dana like to travel for shorter trips?|
*0-90|self|preferences|focus-music|Dana listens to Bach keyboard works or lo-fi while coding.|music||
*0-60|self|preferences|no-cilantro|Dana can't stand cilantro; ask restaurants to leave it out.|food||Any herb Dana dislikes in food?|
4|self|preferences|reminders-evening-before|Dana wants reminders the evening before an appointment, not on the morning itself.|reminders|0.7|When should I nudge Dana about tomorrow's appointments?|
*5-50|self|preferences|slack-muted-evenings|Dana mutes Slack notifications after 19:00 except for PagerDuty.|schedule||
*0-40|self|preferences|rebase-not-merge|Dana rebases feature branches onto main instead of merging main into them.|git||How does Dana keep feature branches up to date?|
*20-120|self|preferences|window-seat|On flights Dana likes a window seat on the left side for the view landing into Lisbon.|travel||
*20-100|self|preferences|books-paper|Dana reads fiction on paper but technical books on the Kindle.|reading||
*40-160|self|preferences|hates-surprise-parties|Dana dislikes surprise parties; small dinners are better.|social||Would Dana enjoy a surprise party?|
*10-100|self|beliefs|flags-short-lived|Dana believes feature flags should be removed within two sprints of reaching 100% rollout.|flags||How long does Dana think a toggle should live after it's fully rolled out?|
*10-100|self|beliefs|incidents-from-config|Dana thinks most of our incidents come from config and infrastructure changes rather than application code.|incidents||
*10-120|self|beliefs|skeptical-microservices|Dana is sceptical of splitting into microservices while the engineering team is under 15 people.|architecture||What is Dana's view on breaking the backend into many small services?|
*30-150|self|beliefs|estimates-in-days|Dana thinks estimating in days is more honest than story points.|planning||
*30-160|self|beliefs|tests-over-coverage|Dana cares more about a few good integration tests around money movement than about a coverage percentage.|testing||
*0-60|health|facts|lower-back|Dana has a recurring lower-back issue and sees a physio, Joana, every other Thursday.|health||Who treats Dana's back, and how often?|
*0-80|health|preferences|standing-desk|Dana alternates sitting and standing every hour to help the lower back.|health||
*0-100|home|facts|apartment|Dana and Sam rent a two-bedroom flat on Rua dos Remedios in Alfama with a small terrace.|home||
*20-160|home|preferences|plants|Dana looks after a monstera and three chilli plants on the terrace.|garden||
"""

DECISIONS = r"""
6|projects|decisions|ledger-postgres|For ledger v2 we chose Postgres 16 over DynamoDB because double-entry postings need multi-row transactions.|database|0.9|Why didn't we go with a NoSQL store for the new ledger?|
7|projects|decisions|money-minor-units|Amounts are stored as bigint minor units (cents) with a separate ISO 4217 currency column; no floats anywhere.|money|0.8|How do we represent monetary values in the database?|
9|projects|decisions|uuid-v7-ids|New tables use UUIDv7 primary keys so ids sort by creation time and index inserts stay local.|database||What ID format do new tables use, and why?|
11|projects|decisions|rest-not-graphql|The public API stays REST plus JSON instead of GraphQL because customers' integration teams asked for simple curl-able endpoints.|api|0.8|Why aren't we offering GraphQL to customers?|
16|projects|decisions|dated-version-header|Public API versions are picked with a dated header, Quillwork-Version: 2026-02-01, Stripe-style, instead of /v2 URL prefixes.|api|0.8|How will clients choose which revision of the API they get?|
17|projects|decisions|cursor-pagination|List endpoints use opaque cursors (starting_after / ending_before) rather than page numbers.|api||How do list endpoints let you walk through long result sets?|
18|projects|decisions|problem-json-errors|API errors follow RFC 9457 problem+json with a stable machine-readable code field.|api||What shape do error responses from the API have?|
22|projects|decisions|webhook-hmac|Webhooks are signed with HMAC-SHA256 over timestamp plus body; receivers should reject events older than five minutes.|webhooks|0.7|How can customers check that a callback really came from us?|
23|projects|decisions|sqs-not-kafka|Webhook delivery runs on SQS with a dead-letter queue after 8 attempts; Kafka was judged too heavy to operate for our volume.|webhooks||Why didn't we adopt Kafka for event delivery?|
30|projects|decisions|postgres-fts-search|Invoice search will use Postgres full-text search plus pg_trgm instead of Elasticsearch, since we have under five million invoices.|search||What powers invoice lookup, and why not a dedicated search engine?|
37|projects|decisions|leave-datadog|We are moving from Datadog to OpenTelemetry with Grafana Cloud to cut the observability bill of about 4,100 EUR a month.|observability|0.7|Why are we leaving our monitoring vendor?|
13|projects|decisions|gitops-argocd|All production changes go through Argo CD; nobody runs kubectl apply against prod by hand.|deploys|0.8|Are manual cluster changes allowed on the live environment?|
20|projects|decisions|canary-5-percent|Production rollouts start as a 5% canary for 30 minutes, watching error rate and p99 latency, before full promotion.|deploys||How cautious is the rollout of a new build, and what do we watch?|
44|projects|decisions|unleash-flags|Feature flags run on a self-hosted Unleash instance instead of LaunchDarkly, mostly because of price.|flags||Which toggle service do we use and why that one?|
25|projects|decisions|atlas-migrations|Schema migrations are managed with Atlas, and every migration must stay backwards compatible for one release.|database||What rule applies to schema changes so old code keeps working?|
12|projects|decisions|sqlc-no-orm|The ledger service uses sqlc-generated Go code rather than an ORM.|database||What do we use in the ledger service to talk to Postgres from Go?|
52|projects|decisions|native-sdks|We will build separate native Swift and Kotlin SDKs instead of Kotlin Multiplatform, because two enterprise customers require pure Swift Package Manager distribution.|sdk|0.7|Why did we pass on a shared cross-platform codebase for the mobile libraries?|
*20-100|projects|decisions|go-monorepo|Backend services live in one Go monorepo; the dashboard keeps its own repository.|repos||
*60-120|projects|decisions|vanta-soc2|We use Vanta to collect SOC 2 evidence; the Type I audit window is in May.|security||Which tool gathers our compliance evidence?|
14|projects|decisions|secrets-manager|All secrets live in AWS Secrets Manager; .env files committed to repos are banned.|security|0.8|Where are credentials supposed to be stored?|
40|projects|decisions|pg-partman-monthly|The postings table is partitioned by month with pg_partman.|database||How is the biggest ledger table split up?|
19|projects|decisions|idempotency-keys|Every POST endpoint accepts an Idempotency-Key header; keys are remembered for 24 hours.|api||How long do we remember a client's retry token on create calls?|
47|projects|decisions|reports-on-replica|Reporting and export queries run against the read replica, never the primary.|database||Where should the CSV export queries run?|
75|projects|decisions|second-sre-q3|We decided to hire a second SRE in Q3 rather than outsource on-call to an agency.|hiring||What did we decide about adding on-call capacity?|
68|projects|decisions|free-tier-cap|The free tier is capped at 100 invoices a month; above that customers move to Starter.|pricing||How many invoices can someone send before they have to pay?|
*30-120|projects|decisions|radix-design-system|The dashboard uses Radix UI primitives with our own design tokens instead of MUI.|frontend||
90|projects|decisions|webhook-payload-retention|Raw webhook payloads are kept for 30 days and then deleted, for GDPR minimisation.|privacy||How long do we keep the bodies of outgoing event notifications?|
*10-80|projects|decisions|utc-timestamps|All API timestamps are UTC RFC 3339 strings; no local times anywhere.|api||
110|projects|decisions|drop-tls-1-1|We dropped TLS 1.0 and 1.1 on the public API from 1 May after giving customers 60 days' notice.|security||
*60-140|projects|decisions|linear-for-tickets|Engineering tracks work in Linear; Jira was retired in February.|process||
"""

PROCEDURES = r"""
10|work|procedures|release-process|To release: cut release/YYYY-MM-DD from main, run make changelog, tag vX.Y.Z, let Argo sync staging, run the smoke suite, then promote to prod and post notes in #releases.|release|0.9|What are the steps to ship a new version to production?|
24|work|procedures|rotate-webhook-secret|To rotate the webhook signing secret: create the new secret in Secrets Manager, add it as secondary, deploy, wait 24 hours while both are accepted, promote it to primary, then revoke the old one.|security|0.8|How do we swap out the signing key for callbacks without breaking customers?|
31|work|procedures|rotate-db-password|To rotate the Postgres app password: trigger the rotation Lambda in Secrets Manager, then run kubectl rollout restart on the ledger deployment in each namespace so pods pick up the new credentials.|security|0.8|How do I change the database password the app uses?|
15|work|procedures|declare-incident|To declare an incident: type /incident in Slack, pick a severity, assign an incident commander, and update the status page within 15 minutes for Sev1 or Sev2.|incidents|0.9|What do I do first when production is badly broken?|
21|work|procedures|hotfix|Hotfixes branch from the latest release tag, cherry-pick the fix, and need one reviewer plus Wei's approval; only Sev1 fixes may skip the canary.|release||What's the path for getting an urgent fix out outside the normal cycle?|
33|work|procedures|refresh-staging-data|To refresh staging data: restore last night's RDS snapshot into staging-db, then run scripts/anonymize.sql before anyone connects.|staging||How do we get recent data into the pre-production environment safely?|
*10-60|work|procedures|expenses-pleo|Expenses go into Pleo with a photo of the receipt by the 5th of the following month.|admin||How do I get reimbursed for something I paid for myself?|
*20-80|work|procedures|time-off|Time off is requested in Factorial at least two weeks ahead, and Dana also tells Priya so sprint planning accounts for it.|admin||What's the process for booking vacation days?|
45|work|procedures|new-api-version|To add an API version: add a dated entry to versions.go, write a transformer from the new response shape back to the previous version, and describe the change in the public changelog.|api||What work is involved in introducing a new dated revision of the API?|
26|work|procedures|rerun-recon|To rerun ledger reconciliation for one day: run make recon DATE=2026-01-20 ENV=prod from the ops box; it takes about 12 minutes.|ledger||How do I redo the balance check for a specific day?|
55|work|procedures|onboard-engineer|New engineer onboarding: Lena orders the laptop, Wei sets up AWS SSO and GitHub access, and the buddy walks them through local setup on day one.|onboarding||What has to happen before a new developer's first day?|
8|work|procedures|local-dev-setup|Local dev: install devbox, run devbox shell, then make up to start Postgres and LocalStack in Docker, and make seed for sample data.|devenv||How do I get the backend running on my laptop?|
*5-50|work|procedures|book-meeting-room|Meeting rooms at Second Home are booked in the Nexudus app; the big room is called Tejo.|office||How do I reserve a room at the office?|
28|work|procedures|customer-escalation|When Hannah escalates a customer bug: acknowledge in #cs-escalations within an hour, open a Linear ticket tagged customer, and give her an ETA.|support|0.7|How should we respond when customer success flags a client's problem?|
34|work|procedures|prod-migrations|Production migrations run only through the migrate GitHub Action (atlas migrate apply), never from a laptop.|database||How are schema changes applied to the live database?|
*40-120|work|procedures|oncall-swap|To swap an on-call shift: create an override in PagerDuty and mention it to Wei in #ops.|oncall||How do I trade a pager shift with someone?|
*60-140|work|procedures|cert-renewal-stuck|TLS certificates renew automatically via cert-manager; if a renewal is stuck, delete the certificate's secret to force reissue.|infra||What can I do if an HTTPS certificate fails to renew?|
96|work|procedures|gdpr-erasure|For a GDPR erasure request: Hannah files the ticket, someone runs the erase-customer job with the customer id, and we confirm by email within 30 days.|privacy||What happens when a customer asks us to delete their personal data?|
*60-150|work|procedures|flag-cleanup|Flag cleanup: once a flag is at 100% for two sprints, open a Linear ticket to remove it and delete it in Unleash after the code is gone.|flags||
*0-40|home|procedures|pixel-meds|Pixel gets half an Apoquel tablet with breakfast, hidden in a piece of cheese.|pets|0.7|How is the dog's allergy pill given?|
*0-30|home|procedures|pay-rent|Rent is paid by bank transfer to Sr. Duarte by the 1st of each month with the reference RUA REMEDIOS 3E.|home||How does Dana pay the landlord?|
*30-120|home|procedures|recycling|Recycling goes out Tuesday and Friday nights; glass goes to the ecoponto on the corner.|home||
*10-90|self|procedures|tax-irs|Dana files the Portuguese IRS return on the Portal das Financas in April, using the automatic IRS for the simple parts.|admin||How does Dana handle the yearly tax filing?|
"""

EVENTS = r"""
46|work|events|go-meetup-talk|Dana gave a talk on idempotency keys at the Lisbon Go meetup on 19 February; about 80 people came.|talks||What did Dana speak about at the community event in February?|~Dana's meetup talk went well
57|work|events|seed-extension|Quillwork's 6M EUR seed extension led by Seedcamp was announced on 3 March.|funding|0.7|How much money did the company raise in March and who led it?|
78|work|events|first-v2-customer|Brightpath Logistics became the first customer live on the v2 ledger on 24 March.|ledger||Which client went live first on the new ledger?|~Brightpath cut over to ledger v2,p:focus-week-of-2026-03-23
129|work|events|offsite-comporta|The team offsite was in Comporta from 13 to 15 May; the theme was planning the second half of the year.|offsite||Where did the team go for the company retreat?|
100|work|events|promotion-senior|Dana was promoted to senior engineer in the April review cycle.|career|0.8||
157|work|events|soc2-report|The SOC 2 Type I report arrived on 11 June with no exceptions.|security||How did the compliance audit turn out?|
35|home|events|pixel-surgery|Pixel had a benign lump removed from his shoulder on 9 February and needed a cone for ten days.|pets||What medical procedure did the dog have in February?|~lump surgery went fine
91|family|events|madeira-easter|Dana and Sam spent Easter week in Madeira and walked the Pico do Arieiro to Pico Ruivo trail.|travel||Where did Dana go on holiday around Easter?|~Dana booked the Madeira trip,~Back from Madeira,p:focus-week-of-2026-04-06
*100-170|family|events|jonah-visit|Jonah and Mia visited Lisbon for a long weekend and went to the Oceanario.|family||
72|work|events|gophercon-ticket|Dana bought a ticket for GopherCon EU in Berlin in June and will stay with Jonah.|conference||
"""

# --------------------------------------------------------------------------
# changes of mind: d1|domain|facet|key1|value1|d2|key2|value2|themes|question
# --------------------------------------------------------------------------
PAIRS = r"""
3|people|preferences|alice-coffee|Alice drinks a double espresso first thing and another after lunch.|70|alice-green-tea|Alice switched from coffee to green tea; she keeps a tin of sencha at her desk.|drinks|What should I get Alice from the cafe?
4|people|facts|priya-vegetarian|Priya is vegetarian, so team meals need a veggie option for her.|95|priya-eats-fish|Priya started eating fish again, though still no meat.|food|What does the PM eat these days when we book a team meal?
0|work|facts|standup-930|Daily standup is at 9:30 in the Tejo room and on Meet for remote folks.|40|standup-at-ten|Standup moved to 10:00 so Priya can join from London without rushing.|meetings|What time is the daily standup?
12|work|decisions|release-tuesdays|The team releases to production on Tuesdays.|63|release-thursdays|The team now ships to production on Thursdays, to keep Mondays and Tuesdays for planning and fixes.|release|Which day of the week do we push releases out?
2|self|preferences|oat-flat-white|Dana's usual coffee order is an oat flat white.|85|decaf-americano|Dana has cut down to one decaf americano a day because of sleep.|coffee|What does Dana order at a coffee shop now?
5|work|procedures|oncall-handoff-monday|On-call handoff happens Monday at 10:30: review open incidents, check the PagerDuty override list and post a summary in #ops.|88|oncall-handoff-tuesday|On-call handoff is now Tuesday at 11:00, after the sprint planning meeting, with the same checklist.|oncall|When do we pass the pager to the next person?
8|people|facts|tom-backend-team|Tom works on the backend team under Marco.|102|tom-platform-team|Tom moved to the platform team and now works with Wei on CI and Terraform.|team|Which team is Tom on these days?
2|people|facts|olu-berlin|Olu works remotely from Berlin.|122|olu-moves-lisbon|Olu relocated to Lisbon in May and comes to the office three days a week.|location|Where is Olu living now?
15|projects|decisions|warehouse-bigquery|Analytics data lives in BigQuery, loaded nightly by Fivetran.|118|warehouse-clickhouse|Analytics moved to ClickHouse Cloud after the BigQuery bill tripled; Kenji owns the migration.|data|Which warehouse do analytics queries run against?
6|self|preferences|gym-mornings|Dana goes to the gym at Holmes Place at 7:00 on weekdays.|77|swimming-lunchtime|Dana swims at the Areeiro municipal pool at lunchtime instead of going to the gym, easier on the back.|fitness|What exercise routine does Dana have now?
9|work|facts|two-week-sprints|Sprints are two weeks long, starting on Mondays.|105|one-week-sprints|Sprints are one week long now; the two-week cycle felt too slow for the SDK work.|process|How long is a sprint?
13|work|preferences|two-approvals|Every pull request needs two approvals before merge.|81|one-approval-small-prs|Pull requests under 200 lines only need one approval; larger ones still need two.|review|How many reviewers does a small change need before merging?
11|self|preferences|scripts-in-bash|Dana writes throwaway scripts in bash.|99|scripts-in-python|Dana writes all throwaway scripts in Python now, after a quoting bug in a bash script deleted the wrong S3 prefix.|scripting|What language does Dana use for quick one-off tooling?
16|work|facts|team-lunch-thursday|Team lunch is on Thursdays, paid by the company.|74|team-lunch-wednesday|The company-paid team lunch is on Wednesdays now because Thursdays are release days.|team|Which day is the company-paid team lunch?
7|self|preferences|office-tue-thu|Dana goes into the office on Tuesdays and Thursdays.|124|office-mon-wed-thu|Dana is in the office Monday, Wednesday and Thursday since Olu joined in person.|office|Which days is Dana physically at the office?
10|people|preferences|sofia-slides|Sofia prefers board updates as a short slide deck.|66|sofia-notion-memo|Sofia wants the monthly board update as a written Notion memo, no deck.|board|What format does Sofia want for the monthly investor update?
21|projects|decisions|kotlin-sdk-first|The Kotlin SDK ships first, the Swift SDK a month later.|108|swift-sdk-only|We paused the Kotlin SDK; only the Swift SDK ships this half, since the two enterprise customers are iOS-only.|sdk|Which mobile library is getting built this half?
1|home|facts|pixel-kibble|Pixel eats Royal Canin Medium Adult kibble, two cups a day.|37|pixel-salmon-food|After the vet visit Pixel switched to a grain-free salmon food, one and a half cups a day.|pets|What food does the dog get now?
5|family|facts|sam-night-shifts|Sam mostly works night shifts, so mornings at home need to be quiet.|126|sam-day-shifts|Sam moved to day shifts in May, 8:00 to 20:00, three days a week.|shifts|What hours does Dana's partner work now?
20|family|events|mum-visit-april|Ruth plans to visit Lisbon in mid-April.|79|mum-visit-june|Ruth's visit got pushed to the second week of June because of her knee operation.|visit|When is Dana's mum coming to stay?
3|self|preferences|commute-metro|Dana commutes by metro from Santa Apolonia to Cais do Sodre.|93|commute-ebike|Dana cycles to the office on a Gira e-bike now, along the river.|commute|How does Dana get to work?
18|work|facts|video-google-meet|Calls with customers happen on Google Meet.|71|video-zoom-external|External calls moved to Zoom because several enterprise customers block Google Meet.|calls|Which video tool do we use with customers?
14|work|decisions|no-friday-pm-deploys|No production deploys after 14:00 on Fridays.|113|no-friday-deploys|There are no production deploys at all on Fridays any more, after the 17 April incident.|deploys|Can I deploy on a Friday morning?
62|people|facts|diego-owns-search|Diego will own the invoice search service.|112|diego-owns-webhooks|Diego took over ownership of webhook delivery from Marco; invoice search went back to Marco's backlog.|ownership|Who owns the webhook delivery service?
10|self|preferences|gift-budget-25|Dana's budget for colleague birthday gifts is about 25 EUR.|83|gift-budget-30|Dana raised the colleague gift budget to 30 EUR.|gifts|How much should I spend on a colleague's birthday present?
32|work|procedures|staging-refresh-weekly|Staging data is refreshed from production every Monday morning.|120|staging-refresh-nightly|Staging is refreshed nightly at 03:00 UTC by a scheduled job now.|staging|How often is the test environment's data replaced with fresh data?
11|self|preferences|portuguese-tuesdays|Dana has Portuguese lessons with Ines on Tuesday evenings.|60|portuguese-thursdays|Dana's Portuguese lesson with Ines moved to Thursdays at 19:00.|language|When is Dana's language class?
25|people|preferences|kenji-slack-dm|Kenji prefers questions about data as Slack DMs.|115|kenji-data-channel|Kenji asks that data questions go to #data-help instead of DMs so answers are searchable.|communication|Where should I send questions for the data engineer?
6|home|preferences|pixel-walker-rita|Rita walks Pixel at midday on weekdays for 15 EUR a walk.|132|pixel-walker-joao|Joao from the building next door walks Pixel at midday now; Rita moved to Porto.|pets|Who takes the dog out at lunchtime?
30|projects|decisions|dashboard-nextjs|The dashboard will be rebuilt on Next.js.|87|dashboard-vite-spa|We dropped Next.js for the dashboard rewrite and went with a plain Vite React SPA; server rendering bought us nothing behind a login.|frontend|What framework is the dashboard rewrite using?
"""

# --------------------------------------------------------------------------
# keyed facts: day|domain|subject|attribute|value|question
# --------------------------------------------------------------------------
FACTS = r"""
0|self|dana|employer|Quillwork|
0|self|dana|job-title|Software Engineer|
100|self|dana|job-title|Senior Software Engineer|
1|self|dana|neighborhood|Alfama|
141|self|dana|neighborhood|Campo de Ourique|Which part of Lisbon does Dana live in now?
2|self|dana|phone|Pixel 7|
65|self|dana|phone|iPhone 16|Which phone does Dana currently have?
3|self|dana|laptop|MacBook Pro 14 M3 Pro|What laptop does Dana have?
4|self|dana|github-handle|dwhitfield|What is Dana's username on GitHub?
*|self|dana|portuguese-level|B1|
150|self|dana|portuguese-level|B2|How good is Dana's Portuguese?
*|self|dana|gp|Dr. Marta Pinto, USF Estrela|Who is Dana's family doctor?
*|self|dana|passport-expiry|14 August 2029|When does Dana need to renew the passport?
*|self|dana|mobile-carrier|NOS|
*|self|dana|blood-type|O positive|
*|self|dana|birthday|27 November|
*|self|dana|nationality|British|
*|self|dana|nif|see 1Password|
2|home|apartment|landlord|Sr. Duarte|
2|home|apartment|rent|1450 EUR|
141|home|apartment|rent|1620 EUR|How much is the monthly rent now?
*|home|apartment|internet|MEO fibre 1 Gbps|
145|home|apartment|internet|NOS fibre 1 Gbps|
3|home|pixel|weight|18.4 kg|
36|home|pixel|weight|17.1 kg|How heavy is the dog?
*|home|pixel|microchip|620098100543217|
*|home|pixel|breed|border collie mix|
10|home|pixel|next-vaccination|12 March 2026|
68|home|pixel|next-vaccination|12 March 2027|When is the dog's next jab due?
*|home|pixel|insurance|Petsure basic plan|
*|home|sam|employer|Hospital de Santa Maria|
0|work|oncall|primary|Wei|
14|work|oncall|primary|Marco|
28|work|oncall|primary|Dana|
42|work|oncall|primary|Tom|
56|work|oncall|primary|Wei|
70|work|oncall|primary|Diego|
84|work|oncall|primary|Marco|
98|work|oncall|primary|Dana|
112|work|oncall|primary|Tom|
126|work|oncall|primary|Wei|
140|work|oncall|primary|Diego|
154|work|oncall|primary|Marco|
168|work|oncall|primary|Dana|Who is holding the pager at the moment?
0|work|prod-db|postgres-version|15.5|
45|work|prod-db|postgres-version|16.2|What Postgres release does production run?
*|work|prod-db|instance-class|db.r6g.xlarge|
103|work|prod-db|instance-class|db.r6g.2xlarge|What size is the production database instance?
*|work|prod|aws-region|eu-west-1|Which AWS region hosts production?
*|work|prod|dr-region|eu-central-1|
*|work|prod|backup-retention|35 days|
*|work|ledger|p99-latency-target|150 ms|What latency goal does the ledger have at the 99th percentile?
0|work|api|rate-limit-per-key|100 requests/s|
92|work|api|rate-limit-per-key|200 requests/s|How many calls per second can one API key make?
27|work|api|current-version|2026-02-01|
130|work|api|current-version|2026-05-15|What is the newest dated API version?
*|work|company|runway|22 months|
0|work|company|headcount|11|
58|work|company|headcount|13|
121|work|company|headcount|14|How many people work at Quillwork?
0|work|company|customers|38|
60|work|company|customers|45|
150|work|company|customers|57|How many paying customers do we have?
*|work|company|biggest-customer|Brightpath Logistics|
*|work|office|address|Second Home, Mercado da Ribeira, Cais do Sodre|Where exactly is the office?
*|work|linear|team-key|QW|
*|work|github|org|quillwork-hq|
*|work|pagerduty|service|ledger-prod|
*|work|status-page|url|status.quillwork.io|
*|work|ci|provider|GitHub Actions|
*|work|go|version|1.25|
88|work|go|version|1.26|Which Go release is the monorepo on?
*|work|ledger|postings-per-day|about 1.2 million|
*|work|soc2|auditor|Prescient Assurance|Which firm is doing the SOC 2 audit?
*|work|domain|registrar|Cloudflare|
*|work|payroll|provider|Factorial|
*|work|dashboard|bundle-size-budget|250 KB gzipped|
"""

COLLEAGUE_FACTS = [
    # name, github, timezone, team, start-year, manager, desk
    ("marco", "mrossi-dev", "Europe/Lisbon", "backend", "2023", "Sofia", "desk 3"),
    ("priya", "priyan", "Europe/London", "product", "2024", "Sofia", "remote"),
    ("tom", "tbecker", "Europe/Lisbon", "backend", "2026", "Marco", "desk 9"),
    ("alice", "alicemoreau", "Europe/Lisbon", "design", "2024", "Priya", "desk 5"),
    ("wei", "weizhang-sre", "Europe/Lisbon", "platform", "2023", "Sofia", "desk 4"),
    ("kenji", "kwatanabe", "Europe/Lisbon", "data", "2024", "Sofia", "desk 7"),
    ("olu", "olu-a", None, "frontend", "2025", "marco", None),
    ("hannah", "hkowalski", "Europe/Lisbon", "customer", "2024", "Sofia", "desk 11"),
    ("diego", "dsantos", "Europe/Lisbon", "backend", "2026", "Marco", "desk 10"),
    ("raj", "rajm-sec", "Asia/Kolkata", "external", "2025", "Sofia", "remote"),
    ("lena", "lfischer", "Europe/Lisbon", "people", "2025", "Sofia", "desk 12"),
]
COLLEAGUE_FACT_QS = {
    ("marco", "github-handle"): "What's Marco's GitHub username?",
    ("raj", "timezone"): "What time zone is Raj working in?",
    ("kenji", "manager"): "Who does Kenji report to?",
    ("hannah", "desk"): "Where does Hannah sit in the office?",
    ("alice", "start-year"): "Which year did Alice join?",
}

KV = r"""
0|favorite-editor|helix|Which text editor does Dana prefer?
0|terminal|ghostty|
1|shell|fish|Which command-line shell does Dana use?
1|code-font|Berkeley Mono 13pt|
2|editor-theme|gruvbox dark hard|
2|wifi-office-ssid|SecondHome-Members|What's the office wireless network called?
3|wifi-home-ssid|PixelNet-5G|
3|preferred-meeting-time|14:00-16:00 Lisbon|When does Dana like meetings scheduled?
4|standup-link|meet.google.com/qwk-stnd-upx|
4|staging-url|https://staging.quillwork.dev|What's the address of the staging environment?
5|grafana-url|https://quillwork.grafana.net|
5|linear-board|linear.app/quillwork/team/QW|
6|coffee-near-office|Fabrica Coffee Roasters, Rua das Flores|Where does Dana get coffee near work?
7|lunch-spot|Kanazawa ramen on Rua de Sao Paulo|
8|favorite-restaurant|Taberna da Rua das Flores|Where does Dana like to eat out?
9|dog-food-shop|Zu pet store in Campo de Ourique|
10|current-book|Designing Data-Intensive Applications, 2nd edition|
11|podcast|Oxide and Friends|Which podcast is Dana listening to?
12|tap-miles-number|TP 418 772 903|What's Dana's frequent flyer number?
12|tshirt-size|M|What size shirt should I order for Dana?
13|monitor|Dell U2723QE|
13|keyboard|Keychron Q1 with brown switches|What keyboard does Dana type on?
14|headphones|Sony WH-1000XM5|
14|calendar-app|Fantastical|
15|notes-app|Obsidian|Where does Dana keep personal notes?
15|password-manager|1Password|
16|browser|Firefox|
16|commit-style|conventional commits|
17|side-project|halves, a Rust CLI for splitting bills|What is Dana's hobby coding project?
17|focus-playlist|Spotify: Bach Goldberg Variations (Glenn Gould 1981)|
18|timezone|Europe/Lisbon|
18|emergency-contact|Sam, +351 912 345 678|Who should be called if something happens to Dana?
19|houseplant-name|Gerald the monstera|
19|wine|Alvarinho from Moncao|Which wine does Dana like?
20|cinema|Cinema Ideal in Chiado|
20|portuguese-tutor|Ines Carvalho|
22|gym-locker-code|4471|
22|parking|none, no car|
23|ssh-key-type|ed25519 on a YubiKey 5C|What kind of SSH key does Dana use?
23|yubikey-serial|18 402 655|
24|vpn|Tailscale, tailnet quillwork.ts.net|
25|aws-profile|qw-prod-readonly|
25|k8s-context|eks-prod-euw1|
26|oncall-phone-sound|Sonar|
27|pagerduty-user|dana.whitfield|
28|printer|Brother HL-L2350DW at home|
28|groceries|Continente delivery on Saturdays|
29|pharmacy|Farmacia Estacio, Rossio|Which pharmacy does Dana use?
30|hairdresser|Barbearia Campos, every 6 weeks|
31|laundry|Lavandaria Alfama, Rua dos Remedios 40|
33|favorite-pastry|pastel de nata from Manteigaria|What's Dana's favourite pastry?
35|sam-favorite-flowers|peonies|Which flowers does Sam like?
36|ruth-address|14 Oakwood Grove, Leeds LS8 2PF|
38|mia-shoe-size|EU 28|
40|jonah-phone|+49 151 2233 4455|
42|netflix-profile|Dana (not Sam's)|
44|spotify-family-plan|paid by Sam|
46|water-plants|monstera every Sunday, chillies every other day in summer|
48|meetup-slides|speakerdeck.com/dwhitfield/idempotency|Where are Dana's slides from the meetup talk?
50|conference-budget|1500 EUR per year|How much can Dana spend on conferences each year?
52|learning-budget|500 EUR per year for books and courses|
54|home-insurance|Fidelidade, policy 77-34-1190|
56|electricity|EDP, direct debit on the 20th|
58|car-rental|Guerin for trips outside Lisbon|
60|favorite-beach|Praia da Adraga|Which beach does Dana like best?
66|board-memo-template|Notion: Board Update Template v3|
70|sdk-repo|github.com/quillwork-hq/quillwork-swift|
72|gophercon-hotel|staying with Jonah in Prenzlauer Berg|
75|brightpath-contact|Ines Ramos, head of finance ops|Who is our main contact at the first customer on the new ledger?
80|release-channel|#releases|
82|incident-channel|#incidents|
84|escalation-channel|#cs-escalations|
86|madeira-hotel|Quinta da Casa Branca, Funchal|
90|easter-flight|TP1689 Lisbon to Funchal|
94|ebike-plan|Gira annual pass, 25 EUR|How much does Dana's bike-share subscription cost?
98|decaf-beans|Fabrica decaf Colombia|
104|new-flat-viewing|Rua Ferreira Borges 71, 3rd floor|
110|moving-company|Mudancas Lisboa Express, quote 780 EUR|Which movers did Dana book and what was the quote?
118|clickhouse-console|console.clickhouse.cloud, org quillwork|
122|olu-desk|desk 2, by the window|
128|offsite-house|Casa Comporta, sleeps 14|
135|anniversary-restaurant|Prado, booked for 19:30|Where is the anniversary dinner booked?
140|new-address|Rua Ferreira Borges 71, 3 Esq, 1350-130 Lisboa|
167|gophercon-badge|pickup at Kosmos, 8:00|
155|summer-holiday|Alentejo coast, 3-17 August|When is Dana's summer break?
160|mum-flight|Jet2 LBA to LIS, arriving 10 June 14:35|
165|soc2-report-link|Vanta trust center: trust.quillwork.io|Where can customers download the compliance report?
170|q3-okr-doc|Notion: Q3 Engineering OKRs|
175|gophercon-receipt|in Pleo, submitted 26 June|
176|q3-planning-doc|Notion: H2 Roadmap - Ledger Exports|
177|ana-start-date|1 September|
178|vanta-access-review|quarterly, next in October|
5|sentry-project|quillwork-api|
6|ops-box|ops-1.internal.quillwork.dev|What's the hostname of the ops machine?
9|staging-db-host|staging-db.cluster-c7x.eu-west-1.rds.amazonaws.com|
10|prod-readonly-user|qw_readonly|
16|unleash-url|https://flags.quillwork.dev|
21|argo-url|https://argo.quillwork.dev|
26|recon-report-bucket|s3://qw-recon-reports|Where do the reconciliation reports get written?
32|design-doc-template|Notion: Engineering RFC Template|
41|figma-file|Quillwork Dashboard 2026|
47|meetup-organiser|Lisbon Gophers, contact Rita Sousa|
53|physio-clinic|Fisiogaspar, Rua Castilho|Where does Dana go for physiotherapy?
67|home-office-chair|Herman Miller Aeron, size B|
73|gophercon-ticket-ref|GCEU26-88412|
89|sam-rota-app|Nursing rota in the HSM app|
101|promotion-letter|in Google Drive / HR / 2026|
115|clickhouse-region|eu-central-1|
125|olu-lisbon-phone|+351 931 222 870|
"""

# --------------------------------------------------------------------------
# unique journal episodes: day|hour|text|question|also
# --------------------------------------------------------------------------
JOURNAL = r"""
0|9.2|First day of the new setup: Dana asked me to keep track of people, decisions and procedures at Quillwork.|
0|15|Tom's first day. Dana showed him the repo layout and the ledger service; he picked up the onboarding ticket QW-101.|
1|11|Tom's laptop arrived without the US keyboard layout he asked for; Lena is swapping it.|What went wrong with the junior engineer's equipment in his first week?
2|16|Architecture review for ledger v2 with Marco and Wei; debated DynamoDB vs Postgres for two hours.|
7|8.9|Staging database ran out of disk overnight; Wei grew the volume from 100 GB to 250 GB and added an alert at 80%.|What happened to pre-production storage in the second week of January?|~Staging back up after the disk resize
7|9.3|Staging back up after the disk resize; the smoke suite passed on the second try.|
9|14|Dana and Priya drafted the API versioning RFC; comments due Friday.|
11|10|Tom shipped his first PR: a fix to the invoice PDF footer. Dana reviewed it.|What was the first change the new junior engineer got merged?
14|17|Sofia announced at all-hands that Quillwork passed 40 paying customers.|
18|18.5|Sofia's birthday drinks at Park bar; Dana left early because of the back.|
17|12|Wei ran a game day: killed a worker node in staging; autoscaler recovered in 4 minutes.|What did the chaos exercise in January show?
16|10|Customer Ferrovia Norte reported duplicate invoices; root cause was a retry without an idempotency key on our side.|Why did one customer get duplicate invoices in January?
17|16|Dana wrote the postmortem for the duplicate invoice bug and added idempotency keys to the internal retry path.|
22|15|Hannah relayed that Padaria Central can't find invoices by customer name; added to the search backlog.|
23|20|Dana and Sam went to see a fado show at Clube de Fado in Alfama.|What live music did Dana and Sam go and see in January?
24|11|Pixel got into the neighbour's bin and ate half a chicken carcass; vet said watch him for 24 hours.|What trouble did the dog get into in January?
25|9.6|Dana is on call this week; quiet first night.|
29|14|Migrated the webhook worker from the old cron loop to SQS consumers; throughput up 3x.|
31|16|Kickoff for invoice search with Diego's predecessor notes; Kenji estimated 3.8M invoices in the table.|
35|8|Pixel's lump surgery went fine; picked him up at 17:00 with a cone.|
38|15|Datadog renewal quote came in at 49k EUR a year; Sofia asked for alternatives.|
41|10|Olu demoed the new invoice table with virtual scrolling; 10k rows render smoothly.|
44|13|Tom presented his first tech talk at the Friday lunch-and-learn, on Go generics.|What topic did Tom present at the internal knowledge session?
45|21|Dana's meetup talk went well; someone from Revolut asked about idempotency key expiry.|
50|11|Incident: webhook deliveries delayed 40 minutes because the SQS consumer hit a memory limit. Wei raised it to 1 GiB.|What caused the slow event notifications in late February?
50|13|Postmortem for the webhook delay drafted; action item for Dana to add a queue-age alert.|
57|17|Seed extension announcement went out; champagne at the office.|
56|10|Diego's first day; Dana gave him the ledger walkthrough.|
63|15|First Thursday release went smoothly; release notes posted in #releases.|
67|9|Dana's back flared up; worked from home with the standing desk all day.|
69|11|Posted Mia's fifth birthday present to Berlin; Dana wrote the card in German.|
72|14|Reviewed Raj's SOC 2 gap analysis: 14 controls missing, mostly around access reviews.|How many gaps did the security consultant find in the compliance pre-assessment?
74|16|Ledger v2 shadow mode: 0.02% of postings mismatched, all rounding in FX conversions.|What did the shadow run of the new ledger reveal?
78|12|Brightpath cut over to ledger v2; Dana and Marco watched dashboards all afternoon.|
83|10|BigQuery bill for March was 3x February; Kenji suspects a dashboard running full scans every minute.|
86|15|Dana booked the Madeira trip: flights on TAP, hotel in Funchal.|
97|20|Back from Madeira; Dana is sunburnt but rested.|
101|14|Sprint planning moved to one-week sprints trial for the SDK team.|
102|10|Incident: the 17 April deploy at 16:40 broke CSV exports for 2 hours; rolled back.|What went wrong with the Friday afternoon deploy in April?|~Paged: CSV export error rate,~Rolling back the export deploy
104|18|Dana and Sam viewed a flat in Campo de Ourique; bigger kitchen, 170 EUR more a month.|
109|9|Signed the lease for the new flat; moving date set for 22 May.|When is Dana moving house?
116|11|Offsite planning call with Sofia; Comporta house booked.|
126|9|Olu's first week in the Lisbon office; team lunch at the ramen place.|
128|20|Offsite day one: Sofia shared the H2 plan; Dana pitched the ledger export API.|
129|15|Offsite day two: kayaking on the Sado, Tom fell in.|What happened during the outdoor activity at the retreat?
137|14|Moving day: the movers were two hours late but nothing broke.|
139|10|Unpacked the office corner in the new flat; the internet install is scheduled for next week.|
143|12|Diego found that webhook retries ignored the Retry-After header; fixed in QW-733.|What bug did Diego find in the retry logic?
147|11|Dana spoke to Kenji about ClickHouse; query times down from 40s to 2s on the revenue dashboard.|How much faster did the revenue dashboard get after the warehouse move?
152|15|GopherCon EU talk prep: Dana submitted a lightning talk about sqlc.|
156|9|Ruth arrived from Leeds for her visit; Dana picked her up at the airport.|
163|20|Anniversary dinner at Prado; Sam loved the fermented cabbage dish.|
168|10|GopherCon EU day one in Berlin; stayed with Jonah and Mia.|
169|13|Lightning talk at GopherCon went fine; three people asked about sqlc with pgx v5.|
171|15|Q3 planning: Dana will lead the ledger export API and keep mentoring Tom.|What is Dana's main project for the third quarter?
175|11|Second SRE candidate, Ana Ribeiro, accepted the offer; starts 1 September.|Who did we hire as the second SRE?
179|16|Quarterly access review done in Vanta: removed two stale AWS users.|
"""

# weekly focus items (self/events), one per week
WEEKLY_FOCUS = [
    "getting Tom productive and finishing the ledger v2 schema",
    "the API versioning RFC with Priya",
    "the duplicate invoice postmortem follow-ups and idempotency for internal retries",
    "the ledger postings writer and the pg_partman setup",
    "moving webhook delivery to SQS",
    "the invoice search spike with Postgres full-text",
    "slides for the Go meetup talk",
    "the observability vendor comparison and the SQS memory fix",
    "Diego's onboarding",
    "the release day change and the reconciliation job",
    "ledger v2 shadow mode and FX rounding mismatches",
    "the Brightpath cutover to ledger v2",
    "SOC 2 access-review controls with Raj",
    "holiday in Madeira",
    "the performance review self-assessment",
    "CSV export incident follow-ups",
    "flat hunting and the Swift SDK auth flow",
    "API version 2026-05-15 changes",
    "offsite prep and supporting Kenji's ClickHouse migration",
    "moving house",
    "webhook retry fixes with Diego",
    "dashboard rewrite API contracts with Olu",
    "Ruth's visit and the anniversary",
    "GopherCon EU and the lightning talk",
    "Q3 planning follow-ups and the ledger export API design",
    "the access review and hiring the second SRE",
    "ledger export API prototype",
]
# "focus" event questions: week index -> question
WEEKLY_FOCUS_QS = {
    2: "What was Dana busy with during the week of 19 January?",
    12: "What was Dana's main work item the week of 30 March?",
}

ONE_ON_ONE_TOPICS = [
    "talked about Tom's progress and where he needs support",
    "went over the ledger v2 timeline",
    "discussed Dana's growth plan toward staff engineer",
    "talked about reducing meeting load",
    "reviewed the on-call burden on the backend team",
    "discussed how the team handles code review latency",
    "went through the quarter's goals",
    "talked about hiring and interview loops",
    "short one; mostly small talk",
    "discussed the tech debt list and what to cut",
    "talked about writing more design docs",
    "discussed whether to split the monorepo CI",
]
RETRO_GOOD = ["releases were smooth", "fewer pages", "good pairing between Tom and Diego",
              "the API review went fast", "customer bugs closed quickly", "standups stayed short",
              "design docs landed early", "no weekend work"]
RETRO_BAD = ["too many interruptions from support", "flaky integration tests", "PRs waiting days for review",
             "unclear priorities mid-sprint", "staging was broken twice", "estimates were off",
             "too many meetings on Tuesdays", "handoffs between frontend and backend were late"]
PLANNING_AREAS = ["ledger v2", "webhooks", "invoice search", "SDKs", "dashboard", "SOC 2", "observability",
                  "API versioning", "reconciliation", "exports"]

TICKET_COMPONENTS = ["ledger", "webhooks", "dashboard", "invoice PDF", "search", "auth", "billing", "SDK",
                     "exports", "reconciliation", "CI", "Terraform"]
TICKET_ISSUES = ["flaky test in {c}", "slow query in {c}", "{c} returns 500 on empty input",
                 "add metrics to {c}", "{c} docs are out of date", "upgrade dependencies in {c}",
                 "timeout handling in {c}", "{c} pagination off by one", "refactor config loading in {c}",
                 "missing audit log entries in {c}", "{c} error messages unclear", "add retries to {c} client"]
DEVS = ["Marco", "Tom", "Wei", "Olu", "Diego", "Kenji", "Dana"]

CUSTOMERS = r"""
*|work|facts|customer-brightpath|Brightpath Logistics is the biggest customer, on the Scale plan, sending about 40,000 invoices a month.|customers||
*|work|facts|customer-ferrovia-norte|Ferrovia Norte is a rail freight company in Porto on the Growth plan; their contact is Rui Tavares.|customers||
*|work|facts|customer-padaria-central|Padaria Central is a bakery chain with 23 shops, on the Starter plan.|customers||How big is the bakery chain that uses us?
*|work|facts|customer-nordvik|Nordvik Marine is a Norwegian ship chandler invoicing in NOK and EUR.|customers||
*|work|facts|customer-lumen-clinics|Lumen Clinics is a dental clinic group in Madrid, onboarded in February.|customers||
*|work|facts|customer-atlas-coworking|Atlas Coworking uses us for member invoicing and is the loudest voice asking for the Swift SDK.|customers||
*|work|facts|customer-ferrovia-norte-sla|Ferrovia Norte has a contractual 99.9% uptime SLA with service credits.|customers||Which customer has an uptime guarantee in their contract?
*|work|facts|customer-kite-foods|Kite Foods churned in April after moving to an ERP with built-in invoicing.|customers||Which customer did we lose in the spring, and why?
*|work|facts|tool-sentry|Application errors go to Sentry, project quillwork-api.|tools||
*|work|facts|tool-pagerduty|PagerDuty has two escalation levels: primary on-call, then Wei.|tools||
*|work|facts|tool-vanta|Vanta monitors laptops and cloud config for SOC 2.|tools||
*|work|facts|tool-fivetran|Fivetran syncs Stripe, HubSpot and Postgres into the warehouse.|tools||
*|work|facts|tool-linear-cycles|Linear cycles match the sprint length.|tools||
*|work|facts|tool-instatus|The public status page runs on Instatus.|tools||Which service hosts our status page?
*|work|facts|tool-localstack|LocalStack emulates SQS and S3 for local development.|tools||
*|work|facts|tool-hubspot|Sales and customer success use HubSpot as the CRM.|tools||
*|work|facts|office-second-home|The Lisbon team works from Second Home at Mercado da Ribeira; desks are fixed, not hot-desking.|office||
*|work|facts|office-hours-building|The coworking building is open 8:00 to 22:00 on weekdays; weekends need a member card.|office||
*|self|facts|dana-from-york|Dana grew up in York and moved to Lisbon in 2021.|background||Where did Dana grow up?
*|self|facts|dana-studied-edinburgh|Dana studied computer science at the University of Edinburgh.|background||
*|self|facts|dana-previous-job|Before Quillwork, Dana worked at Farfetch on the checkout team.|background||
*|home|facts|neighbour-fatima|Dona Fatima next door keeps a spare key and feeds the neighbourhood cats.|neighbours||Who has a spare key to Dana's flat?
*|home|facts|building-intercom|The building intercom is broken; deliveries need a phone call.|home||
*|self|facts|sam-pt-family|Sam's family lives in Coimbra; Sunday lunches there about once a month.|family||
"""

READING = [
    ("the Stripe blog post on idempotent requests", "keys should be scoped per account and expire"),
    ("Designing Data-Intensive Applications chapter 7", "serializable isolation is cheaper than people think in Postgres"),
    ("the Google SRE book chapter on alerting", "page on symptoms, not causes"),
    ("Brandur's post on Postgres job queues", "SKIP LOCKED makes a simple queue viable"),
    ("the pg_partman docs", "premake at least four partitions ahead"),
    ("Martin Kleppmann's talk on event sourcing", "logs are the source of truth, tables are caches"),
    ("Accelerate by Forsgren et al.", "deploy frequency correlates with stability"),
    ("the OpenTelemetry semantic conventions", "use http.route, not raw paths, as span names"),
    ("a post on UUIDv7 index locality", "random UUIDs bloat B-tree indexes"),
    ("Modern Software Engineering by Dave Farley", "optimise for fast feedback"),
    ("the Atlas docs on versioned migrations", "lint migrations in CI for destructive changes"),
    ("the AWS SQS best practices page", "set the visibility timeout to six times the handler time"),
    ("Julia Evans' zine on DNS", "TTLs lie during incidents"),
    ("the RFC 9457 text", "problem type URIs should be dereferenceable docs"),
    ("Team Topologies", "platform teams should reduce cognitive load for stream-aligned teams"),
    ("the Go 1.26 release notes", "new runtime metrics for goroutine scheduling"),
    ("a post on double-entry ledgers at Modern Treasury", "never update a posting, only reverse it"),
    ("Charity Majors on observability 2.0", "wide structured events beat pre-aggregated metrics"),
    ("the ClickHouse docs on MergeTree", "ORDER BY key choice dominates query speed"),
    ("Kent Beck's Tidy First", "separate structure changes from behaviour changes in PRs"),
]
CUSTOMER_CALLS = ["Brightpath Logistics", "Ferrovia Norte", "Padaria Central", "Nordvik Marine", "Lumen Clinics",
                  "Atlas Coworking", "Kite Foods", "Verde Energia", "Casa Moura", "Baltic Freight"]
CALL_TOPICS = ["webhook reliability", "the Swift SDK timeline", "invoice search", "CSV exports", "FX rounding",
               "API versioning", "rate limits", "their renewal", "SOC 2 questionnaire", "multi-currency invoices"]
ALL_HANDS = ["hiring plan", "the seed extension", "Q2 goals", "customer growth", "the offsite agenda", "H2 roadmap",
             "SOC 2 progress"]

SLOTS = {
    "standup": ["discussed the deploy", "went over the ledger migration status", "Tom is stuck on a flaky test",
                "talked through the webhook retry backlog", "nothing major, everyone heads-down",
                "reviewed the sprint board", "Olu showed progress on the dashboard", "discussed the staging data",
                "Wei flagged CPU on the worker nodes", "prioritised customer bugs from Hannah",
                "quick sync on the API changelog", "talked about the SOC 2 evidence list",
                "Marco asked for reviews on the ledger PRs", "Diego is pairing with Tom today",
                "discussed the release checklist", "short one, Priya out", "went over open incidents",
                "talked about the search relevance tweaks", "Kenji mentioned the nightly data job is late"],
    "dev": ["Tom", "Marco", "Diego", "Olu", "Wei", "Kenji"],
    "component": ["the ledger writer", "webhook retries", "the invoice PDF renderer", "the search endpoint",
                  "the auth middleware", "the CSV export", "the reconciliation job", "the Terraform modules",
                  "the dashboard tables", "the SDK auth flow", "the rate limiter", "the migration scripts"],
    "task": ["the ledger postings writer", "webhook delivery metrics", "the API changelog", "invoice search ranking",
             "test flakiness in CI", "the reconciliation report", "the export API design doc",
             "cleaning up old feature flags", "a design doc for ledger exports", "upgrading pgx",
             "the Swift SDK examples", "tidying the runbooks", "query plans for the postings table"],
    "lunchmate": ["Marco", "Tom", "Priya", "Alice", "Wei", "Kenji", "Diego", "Hannah", "the team"],
    "place": ["the ramen place", "Time Out Market", "the canteen downstairs", "A Cevicheria", "the falafel stand",
              "Mercado da Ribeira", "the poke place on Rua do Alecrim", "the Thai place near Cais do Sodre"],
    "chat": ["weekend plans", "the new coffee machine", "a podcast episode", "football", "the rain",
             "summer holidays", "house prices in Lisbon", "a documentary on Netflix", "the Champions League",
             "learning Portuguese", "the best pastel de nata", "an article about Rust in the Linux kernel"],
    "reminder": ["the physio appointment", "calling mum on Sunday", "Pixel's flea treatment", "paying rent",
                 "the expense report", "watering the chillies", "renewing the Gira pass",
                 "buying Sam's favourite cheese", "the Portuguese homework", "sending the board memo draft"],
    "eod": ["PRs merged, nothing on fire", "ledger tests green", "two reviews pending", "quiet day",
            "wrote most of the design doc", "left early for the physio", "long day of meetings",
            "one deploy, no issues", "fixed the flaky test finally", "inbox at zero"],
    "evening": ["Dana cooked dinner with Sam", "walked Pixel along the river", "read for an hour",
                "watched a film at home", "video call with Jonah", "Portuguese homework",
                "early night", "dinner with friends in Graca"],
    "meeting": ["a sync with Marco", "a design review", "a call with Raj", "a pairing session with Olu",
                "a 1:1 with Tom", "a customer call with Hannah", "the API review"],
    "when": ["tomorrow at 15:00", "Thursday afternoon", "next Monday at 14:00", "Wednesday at 16:00",
             "Friday at 11:00"],
    "weekend": ["long walk with Pixel in Monsanto", "brunch with Sam", "farmers market in Principe Real",
                "beach day at Carcavelos", "cleaned the flat", "read on the terrace", "visited Sam's family",
                "cinema in the evening", "cooked a big stew", "lazy day at home"],
    "ci": ["all green", "one flaky test, re-ran", "build took 14 minutes", "nothing unusual", "p99 a bit high after lunch",
           "error rate flat", "a slow test in the ledger package"],
    "lookup": ["train times to Porto", "a restaurant for Friday", "the price of a new monitor arm",
               "dog-friendly cafes", "flights to Leeds", "a Portuguese grammar book", "standing desk mats"],
}

WEEKDAY = [
    (0.85, 1, 3, 10.5, 17.5, ["Reviewed PRs from {dev}.", "Reviewed {n} PRs from {dev}; left a few comments.",
                              "Reviewed {dev}'s PR for {component}; approved after small fixes.",
                              "Code review for {dev}: asked for more tests around {component}.",
                              "Reviewed PRs from {dev} and {dev}."]),
    (0.8, 1, 2, 11, 18, ["Spent the afternoon on {task}.", "Heads-down on {task} most of the day.",
                         "Paired with {dev} on {task}.", "Worked on {task}.", "Made progress on {task}."]),
    (0.35, 1, 1, 12.5, 13.5, ["Lunch with {lunchmate} at {place}; talked about {chat}.",
                              "Lunch with {lunchmate}; talked about {chat}.", "Quick lunch at {place}."]),
    (0.8, 1, 1, 8.5, 9.5, ["Triaged Dana's inbox: {n} emails, {m} need replies.",
                            "Cleared Slack notifications; flagged {m} threads for Dana.",
                            "Morning triage: {N} unread, nothing urgent."]),
    (0.45, 1, 1, 17, 20, ["Reminded Dana about {reminder}.", "Set a reminder for {reminder}."]),
    (0.6, 1, 1, 18, 19.5, ["End of day: {eod}.", "Wrap-up: {eod}."]),
    (0.6, 1, 1, 10, 17, ["Scheduled {meeting} for {when}.", "Moved {meeting} to {when}."]),
    (0.3, 1, 1, 11, 17, ["Dana asked me to look up {lookup}.", "Looked up {lookup} for Dana."]),
    (0.35, 1, 1, 14, 18, ["Checked CI on main: {ci}.", "Deploy to staging: {ci}.", "Looked at the Grafana dashboards: {ci}."]),
    (0.25, 1, 1, 20, 22.5, ["Evening: {evening}.", "{evening}."]),
]
WEEKEND = [
    (0.9, 1, 1, 10, 19, ["Quiet weekend day; {weekend}.", "Weekend: {weekend}.", "Saturday-ish plans: {weekend}."]),
    (0.4, 1, 1, 17, 21, ["Reminded Dana about {reminder}.", "Evening: {evening}."]),
]

UNANSWERABLE = [
    "What is Wei's shoe size?",
    "Which dentist does Dana go to?",
    "What is Marco's favourite football club?",
    "How many siblings does Priya have?",
    "What car does Sofia drive?",
    "Which university did Tom graduate from?",
    "What is the name of Alice's dog?",
    "When is Diego's birthday?",
    "What is our Azure subscription id?",
    "Which message broker do we use for the mobile push notifications?",
    "What is the procedure for rotating the Stripe API key?",
    "How much did the Comporta offsite cost in total?",
    "What did Dana decide about using MongoDB for analytics?",
    "What is Hannah's home address?",
    "Which gym does Sam go to?",
    "What is Jonah's wife called?",
    "What time does the Tuesday design critique start?",
    "How many story points did the team complete last sprint?",
    "Who won the office ping-pong tournament?",
    "What is Dana's favourite video game?",
    "Which cloud region hosts the Singapore cluster?",
    "What is the Wi-Fi password at Sam's parents' house?",
    "What is Kenji's wife's name?",
    "What was discussed at the board meeting in December 2025?",
    "Which law firm handles Quillwork's contracts?",
    "What grade did Mia get in her swimming lessons?",
    "What is Olu's favourite chess opening?",
    "When does Lena's contract end?",
    "How do we rotate the GitHub Actions OIDC role?",
    "What did Priya think of the Figma redesign of the settings page?",
]

EXTRA_QUESTIONS = [
    # (type, question, labels) where the same information is stored twice
    ("fact", "What is Dana's current job title?", ["f:self:dana:job-title:2", "p:promotion-senior"]),
    ("event", "What came out of Dana's spring performance review?", ["p:promotion-senior", "f:self:dana:job-title:2"]),
]


def build(b):
    rng = b.rng
    b.persona_block(PEOPLE)
    b.persona_block(SELF)
    b.persona_block(DECISIONS)
    b.persona_block(PROCEDURES)
    b.persona_block(EVENTS)
    b.persona_block(CUSTOMERS)
    b.pairs_block(PAIRS)
    b.facts_block(FACTS)
    # colleague facts (generated from the table)
    attrs = ["github-handle", "timezone", "team", "start-year", "manager", "desk"]
    for row in COLLEAGUE_FACTS:
        name = row[0]
        for attr, val in zip(attrs, row[1:]):
            if val is None or (name == "tom" and attr in ("team", "manager")):
                continue  # covered by persona memories that change over time
            label = "f:people:%s:%s:1" % (name, attr)
            d = b.rday(skew=1.8, weekday=True)
            b.add(label, d, "fact", domain="people", subject=name, attribute=attr, value=val)
            if (name, attr) in COLLEAGUE_FACT_QS:
                b.q("fact", COLLEAGUE_FACT_QS[(name, attr)], [label])
    b.kv_block(KV)
    b.journal_block(JOURNAL)

    # weekly focus (self/events) on Mondays
    for w, focus in enumerate(WEEKLY_FOCUS):
        d = w * 7
        if d >= NDAYS:
            break
        key = "focus-week-of-%s" % iso_date(d)
        label = "p:" + key
        b.add(label, d, "persona", hour=8.6, domain="self", facet="events", key=key,
              value="Focus for the week of %s: %s." % (fmt_date(d), focus))
        if w in WEEKLY_FOCUS_QS:
            b.q("event", WEEKLY_FOCUS_QS[w], [label])

    # recurring meetings (work/events)
    sprint = 1
    for d in range(NDAYS):
        wd = d % 7
        if wd == 1:  # Tuesday 1:1 with Marco
            key = "one-on-one-marco-%s" % iso_date(d)
            b.add(None, d, "persona", hour=15, domain="work", facet="events", key=key,
                  value="1:1 with Marco on %s: %s." % (fmt_date(d), rng.choice(ONE_ON_ONE_TOPICS)))
        if wd == 0 and d % 14 == 0:
            key = "sprint-%d-planning" % sprint
            b.add(None, d, "persona", hour=11, domain="work", facet="events", key=key,
                  value="Sprint %d planning: committed to %d tickets, focus on %s and %s." % (
                      sprint, rng.randint(14, 26), rng.choice(PLANNING_AREAS), rng.choice(PLANNING_AREAS)))
        if wd == 4 and d % 14 == 11:
            key = "sprint-%d-retro" % sprint
            b.add(None, d, "persona", hour=16, domain="work", facet="events", key=key,
                  value="Sprint %d retro: went well - %s; to improve - %s." % (
                      sprint, rng.choice(RETRO_GOOD), rng.choice(RETRO_BAD)))
            sprint += 1
        if wd == 3:
            key = "tom-one-on-one-%s" % iso_date(d)
            b.add(None, d, "persona", hour=14, domain="people", facet="events", key=key,
                  value="Mentoring session with Tom on %s: %s." % (fmt_date(d), rng.choice(
                      ["went through his review feedback", "talked about Go error handling",
                       "planned his next ticket", "discussed how to ask for help earlier",
                       "walked through the reconciliation job", "reviewed his design doc draft"])))

    # reading notes
    for i, (src, lesson) in enumerate(READING):
        d = b.rday(skew=1.0, weekday=False)
        b.add(None, d, "persona", domain="self", facet="beliefs", key="reading-note-%02d" % (i + 1),
              value="From %s: %s." % (src, lesson))
    # weekly Priya sync, monthly all-hands, interviews, customer calls
    ah = 0
    for d in range(NDAYS):
        wd = d % 7
        if wd == 2:
            b.add(None, d, "persona", hour=16, domain="work", facet="events", key="priya-sync-%s" % iso_date(d),
                  value="Product sync with Priya on %s: %s." % (fmt_date(d), rng.choice([
                      "groomed the API backlog", "talked about customer requests", "reviewed spec drafts",
                      "went over the roadmap", "prioritised bugs vs features", "discussed pricing feedback",
                      "short check-in", "talked about the SDK beta"])))
        if wd == 4 and day_of_month(d) <= 7 and ah < len(ALL_HANDS):
            b.add(None, d, "persona", hour=17, domain="work", facet="events", key="all-hands-%s" % iso_date(d)[:7],
                  value="All-hands on %s: Sofia talked about %s." % (fmt_date(d), ALL_HANDS[ah]))
            ah += 1
    for i in range(24):
        d = b.rday(skew=1.0, weekday=True, lo=20)
        b.add(None, d, "persona", domain="people", facet="events", key="interview-candidate-%02d" % (i + 1),
              value="Interviewed candidate C-%02d for the %s role: %s." % (i + 1, rng.choice(
                  ["senior backend", "SRE", "frontend", "data engineer"]), rng.choice(
                  ["strong yes", "yes", "lean no", "no", "strong system design, weak on Go"])))
    for i in range(28):
        d = b.rday(skew=1.0, weekday=True)
        cust = rng.choice(CUSTOMER_CALLS)
        b.add(None, d, "persona", domain="work", facet="events",
              key="call-%s-%s" % (cust.lower().replace(" ", "-"), iso_date(d)),
              value="Customer call with %s on %s about %s; Hannah took notes." % (cust, fmt_date(d), rng.choice(CALL_TOPICS)))
    # tickets (projects/events)
    n = 101
    combos = [(c, i) for c in TICKET_COMPONENTS for i in TICKET_ISSUES]
    rng.shuffle(combos)
    days = sorted(b.rday(skew=1.0, weekday=True) for _ in range(150))
    for d, (c, i) in zip(days, combos):
        n += rng.randint(3, 9)
        title = i.format(c=c)
        key = "qw-%d" % n
        b.add(None, d, "persona", domain="projects", facet="events", key=key,
              value="Ticket QW-%d (%s) opened by %s, assigned to %s." % (
                  n, title, rng.choice(DEVS + ["Hannah", "Priya"]), rng.choice(DEVS)))

    skip = set()
    b.daily_journals(SLOTS, WEEKDAY, WEEKEND, skip_days=skip)
    for d in range(NDAYS):
        if is_weekend(d) or rng.random() > 0.9:
            continue
        hour = 9.5 if d < 40 else 10.0
        text = b.fill(rng.choice(["Daily standup: {standup}.", "Standup: {standup}.",
                                  "Daily standup: {standup}; no blockers.", "Standup ran long: {standup}."]), SLOTS)
        b.add(None, d, "journal", hour=hour, content=text)
    # a few extra bursty days (incident days / deadline days)
    for d, lines in ((50, ["Paged: webhook queue age above 15 minutes.", "Wei joined the webhook incident call.",
                           "Status page updated: webhook delays.", "Webhook backlog draining, ETA 20 minutes.",
                           "Webhook backlog cleared; incident closed."]),
                     (102, ["Paged: CSV export error rate at 60%.", "Rolling back the export deploy.",
                            "Rollback finished; exports recovering.", "Customer emails about failed exports answered by Hannah."]),
                     (78, ["Cutover checklist step 1 done: writes paused.", "Cutover step 2: backfill verified.",
                           "Cutover step 3: writes resumed on v2.", "Dashboards look normal after the cutover."])):
        h = 11.0 if d != 50 else 10.5
        for line in lines:
            h += rng.uniform(0.1, 0.4)
            b.add(None, d, "journal", hour=h, content=line)
    b.unanswerable.extend(UNANSWERABLE)
    for qt, text, labels in EXTRA_QUESTIONS:
        b.q(qt, text, labels)
