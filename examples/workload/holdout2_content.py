"""Holdout2 workload: an assistant agent working for Mireille Caron, a former
cardiology nurse who is now the clinical informatics lead at CHU Sainte-Odile,
a 412-bed teaching hospital in Montreal, where she runs the rollout of the
electronic medication record (eMAR) and barcode scanning at the bedside.
Outside work she restores vintage steel road bicycles and is learning Japanese.
Written after the memory system had been tuned, as a fresh held-out set.
Day 0 = Monday 5 Jan 2026.  Jan d -> day d-5, Feb d -> 26+d,
Mar d -> 54+d, Apr d -> 85+d, May d -> 115+d, Jun d -> 146+d, Jul d -> 176+d.
"""
from gen import fmt_date, iso_date, is_weekend, NDAYS, day_date

# --------------------------------------------------------------------------
# persona: day|domain|facet|key|value|themes|importance|question|also
# --------------------------------------------------------------------------
PEOPLE = r"""
0|people|facts|stephane-director|Stephane Lavoie is the director of clinical systems at CHU Sainte-Odile and Mireille's manager; he came from the Quebec health ministry in 2022.|management||Who is my boss at the hospital?|
1|people|preferences|stephane-one-pager|Stephane wants any request for money or staff as a one-page brief with a cost table, sent 48 hours before the meeting.|communication|0.8|If I need budget from my director, how should I pitch it?|
*0-80|people|facts|stephane-hockey|Stephane plays goalie in a Tuesday night beer-league hockey team at the Arena Saint-Michel.|sport||What position does my manager play on his team?|
*40-140|people|facts|stephane-birthday|Stephane's birthday is 2 September.|birthday||
2|people|facts|maxime-joined|Maxime Roy joined the informatics team on 5 January as a junior analyst; he was a respiratory therapist at the Jewish General for six years.|team||What did the newest analyst on my team do before switching careers?|
3|people|relationships|maxime-mentor|Mireille is Maxime's mentor for his first six months and meets him every Thursday.|mentoring|0.6|Who is the new hire's mentor?|
*10-80|people|preferences|maxime-screenshots|Maxime learns best from annotated screenshots and short written steps rather than live demos.|learning||What's the best way to teach Maxime a new build task?|
*20-120|people|facts|maxime-twins|Maxime and his wife Ophelie have twin boys, Theo and Jules, born last October.|family||How old are Maxime's kids?|
2|people|facts|karim-interfaces|Karim Benali is the interface analyst; he owns the Rhapsody engine and every HL7 feed in and out of Halcyon.|interfaces||Who do I go to when lab results stop flowing into the chart?|
*0-60|people|preferences|karim-no-meetings-friday|Karim keeps Fridays meeting-free for interface testing and only answers urgent pages.|schedule||Which day should I avoid meetings with Karim?|
*20-140|people|facts|karim-oud|Karim plays the oud in a small Andalusian music ensemble that rehearses in Parc-Extension.|music||What instrument does Karim play?|
*10-60|people|facts|karim-birthday|Karim's birthday is 19 February; he has a sweet tooth for pistachio baklava.|birthday|0.5|What treat would Karim like on his birthday?|
3|people|facts|thi-build|Thi Nguyen is the senior build analyst; she builds order sets, flowsheets and the medication record screens in Halcyon.|build||Who on the team actually configures the order sets?|
*0-70|people|preferences|thi-tickets|Thi wants every build request as a ticket with a screenshot of the current screen and a mock-up of the change, never by hallway conversation.|requests|0.7|How should nurses ask Thi for a screen change?|
*20-150|people|facts|thi-marathon|Thi is training for the Ottawa marathon at the end of May.|sport||Which race is Thi preparing for?|
*10-100|people|facts|thi-birthday|Thi's birthday is 8 March.|birthday||
4|people|facts|gabriel-reports|Gabriel Ouellet is the reporting analyst; he writes the SQL behind the Power BI dashboards.|reporting||
*0-90|people|facts|gabriel-cheese|Gabriel's family runs a goat cheese farm near Saint-Hyacinthe and he brings cheese to every team party.|food||Whose family makes the cheese he brings to parties?|
*20-120|people|preferences|gabriel-late-starts|Gabriel starts at 10:00 and works until 18:30 because he drops his daughter at daycare.|schedule||
3|people|facts|helene-cmio|Dr. Helene Bouchard is the chief medical information officer, an internist who still does two weeks a year on the wards.|leadership||Which physician leads clinical informatics at the hospital?|
*0-60|people|preferences|helene-data-first|Dr. Bouchard only accepts a change to clinical alerts if it comes with override-rate data from the last 30 days.|alerts|0.7|What data does the CMIO want before she changes alerts?|
*30-150|people|facts|helene-choir|Dr. Bouchard sings alto in the Choeur de l'Odile, the hospital staff choir.|music||
5|people|facts|francine-cno|Francine Pelletier is the director of nursing (chief nursing officer) and the executive sponsor of the eMAR project.|leadership||Who is the executive sponsor of the medication record project?|
2|people|preferences|josee-text-nights|Josee wants a text, not a page, about anything non-urgent on 6 Nord during the night.|communication||How do I contact the cardiology nurse manager about a minor issue after hours?|
*0-50|people|preferences|francine-french|Francine reads everything in French; send her documents in French first, English only if asked.|language|0.7|Which language should documents for the head of nursing be in?|
6|people|facts|josee-6nord|Josee Tremblay is the nurse manager of 6 Nord, the cardiology unit chosen as the pilot.|pilot||
*0-40|people|facts|bernard-pharmacy|Bernard Ostrowski is the pharmacist informaticist who maintains the medication dictionary and the smart-pump drug library.|pharmacy||Who looks after the drug library on the IV pumps?|
*0-60|people|facts|nadia-privacy|Nadia Haddad is the privacy officer; any new report that exports patient names needs her sign-off.|privacy||Whose approval does a report with patient names need?|
*10-90|people|facts|nadia-allergy|Nadia is allergic to tree nuts; no almond pastries at meetings she attends.|health|0.8|What should I avoid ordering for meetings with the privacy officer?|
8|people|facts|trevor-vendor|Trevor Ames is Halcyon's project manager for the hospital; he works from Toronto and comes to Montreal every other week.|vendor||
*10-90|people|facts|trevor-cubs|Trevor is a die-hard Chicago Cubs fan and will talk baseball stats for an hour.|sport||
*0-70|people|facts|luc-biomed|Luc Gendron runs biomedical engineering and is the person who pushes pump library updates and fixes scanners.|biomed||Who repairs broken barcode readers?|
*0-60|people|relationships|thi-karim-school|Thi and Karim studied together at Polytechnique before both joining the hospital.|friends||Which two teammates went to engineering school together?|
0|family|facts|benoit-husband|Benoit Gagnon, Mireille's husband, is the head sound technician at the Theatre du Rideau Vert.|family||What does my husband do for work?|
*20-120|family|facts|benoit-birthday|Benoit's birthday is 27 July; he collects old ribbon microphones.|birthday||What does Benoit collect?|
*0-60|family|facts|benoit-lactose|Benoit is lactose intolerant; order the lactose-free options when cooking for him.|health|0.7|Any food issue to keep in mind for Benoit?|
1|family|facts|laurence-daughter|Laurence, Mireille's daughter, is 15, in secondaire 4 at Ecole Pierre-Dupuy, and plays water polo for the club CAMO.|family||Which school does my daughter go to?|
*10-90|family|facts|laurence-birthday|Laurence's birthday is 30 April; she wants a used film camera this year.|birthday|0.6|What should I give my daughter for her birthday?|
*0-60|family|facts|annick-sister|Mireille's sister Annick is a notary in Quebec City, married to Raphael.|family||What does my sister do?|
*10-80|family|facts|felix-nephew|Annick's son Felix turns nine on 21 February and is obsessed with Lego trains.|birthday||What kind of present would my sister's boy like?|
2|family|facts|huguette-mother|Mireille's mother Huguette lives alone in Trois-Rivieres and calls every Wednesday at 19:00.|family||When does my mum usually phone?|
*20-100|family|facts|huguette-crosswords|Huguette does the La Presse crossword every day and loves Agatha Christie audiobooks.|hobby||What would my mother enjoy as a small gift?|
*0-50|home|facts|miso-cat|Miso is Mireille's 13-year-old orange tabby; his vet is Dr. Paquette at the Clinique veterinaire Masson.|pets||Who takes care of the cat's health?|
*10-100|people|facts|gilles-framebuilder|Gilles Aubin is a retired framebuilder who volunteers at the co-op and taught Mireille to braze.|bikes||Who taught me brazing?|
*10-100|people|facts|sunita-riding|Sunita Rao is Mireille's riding friend from the co-op; they do the Sunday loop around Mont-Royal and up to the Oratoire.|bikes||Who do I ride with on Sundays?|
*0-60|people|facts|aiko-tutor|Aiko Fujimoto is Mireille's Japanese tutor on italki; she lives in Sendai and teaches by video.|japanese||Where is my Japanese teacher based?|
*20-120|people|facts|shun-exchange|Shun Ishikawa is Mireille's language exchange partner, a postdoc at McGill who wants to practise French.|japanese||Who do I swap language practice with?|
*30-120|people|facts|josee-maternity|Josee Tremblay announced she is expecting her second child in August.|pilot||
"""

SELF = r"""
0|self|preferences|no-meetings-friday-pm|Mireille keeps Friday afternoons free of meetings for unit rounds on the floors.|schedule|0.8|When should I not book meetings?|
1|self|preferences|notes-in-french|Mireille wants meeting minutes in French with decisions in bold and an owner next to every action.|meetings||How do I like minutes written?|
*0-60|self|preferences|hates-voicemail|Mireille never listens to voicemail; people should text or send a Teams message instead.|communication||What's the right way to leave me a message?|
*0-90|self|preferences|morning-tea|Mireille drinks genmaicha in the morning and no coffee after noon.|drinks||What do I usually drink first thing?|
*10-90|self|preferences|aisle-seat|On the train and on planes Mireille takes an aisle seat so she can stretch her bad knee.|travel||Which seat should I book for myself?|
*0-60|self|preferences|no-mushrooms|Mireille can't stand mushrooms in any form.|food||Is there an ingredient I refuse to eat?|
*20-120|self|preferences|lugged-steel|Mireille only restores lugged steel frames from before 1985; no aluminium, no carbon.|bikes|0.6|What kind of old steel frames am I interested in?|
*10-100|self|preferences|friction-shifters|Mireille prefers downtube friction shifters to indexed shifting on her own bikes.|bikes||
*0-80|self|preferences|paper-textbook|Mireille studies Japanese grammar from the paper Genki books but does kanji on the phone.|japanese||
*30-150|self|preferences|reminders-two-days|Mireille wants reminders two days before any family birthday so a card can still arrive.|reminders|0.7|How far ahead should I get reminders about family birthdays?|
*0-100|self|beliefs|alert-fatigue|Mireille believes most interruptive alerts should be removed; if more than 90% of an alert's firings are overridden it is noise.|alerts|0.7|What is my view on pop-up warnings that nurses click through?|
*10-120|self|beliefs|nurses-at-design|Mireille believes every screen used at the bedside should be tested by a night-shift nurse before go-live.|design||Who do I think should try out bedside screens before launch?|
*20-140|self|beliefs|training-at-elbow|Mireille thinks at-the-elbow support during go-live matters more than classroom hours.|training||
*30-160|self|beliefs|dont-paint-chrome|Mireille thinks original paint with patina is worth more than a fresh respray on a vintage bike.|bikes||Should an old frame get fresh paint, in my opinion?|
*0-60|health|facts|knee-meniscus|Mireille has a torn meniscus in her left knee and does physio with Karine at Physio Rosemont every second Monday.|health||Who treats my knee, and how often?|
*10-90|health|facts|migraine|Mireille gets migraines triggered by fluorescent lights and keeps sumatriptan in her desk drawer.|health|0.7|Where do I keep my headache medication at work?|
*0-100|home|facts|triplex-rosemont|Mireille and Benoit own the top floor of a triplex on 3e Avenue in Rosemont, with the workshop in the basement.|home||
*10-80|self|facts|nursing-background|Mireille was a cardiology nurse for eleven years, the last four as assistant head nurse on nights, before moving to informatics in 2021.|background||How long did I work on the wards before switching to informatics?|
*20-120|self|facts|studied-udem|Mireille did her nursing degree at the Universite de Montreal and a health informatics certificate at Concordia.|background||Where did I get my nursing degree?|
*0-100|self|facts|grew-up-trois-rivieres|Mireille grew up in Trois-Rivieres and moved to Montreal for university.|background||
"""

DECISIONS = r"""
7|projects|decisions|pilot-6nord|6 Nord (cardiology, 32 beds) was chosen as the eMAR pilot over 4 Sud surgery because its staffing is stable and Josee volunteered.|pilot|0.9|Why was the cardiology unit picked as the pilot?|
7|projects|decisions|news2-score|The deterioration alert uses the NEWS2 score instead of qSOFA because nurses already chart all its vital signs every four hours.|alerts|0.8|Why is the early-warning alert based on that score?|
8|projects|decisions|datamatrix-wristbands|Patient wristbands carry a 2D DataMatrix code instead of a linear barcode, because linear codes failed on small curved wrists in testing.|scanning|0.8|What sort of code is printed on patient ID bands, and why?|
9|projects|decisions|zebra-ds8178|Each workstation on wheels gets a cordless Zebra DS8178 scanner; the built-in webcam scanning was too slow in testing.|scanning||What reads the codes at the bedside?|
11|projects|decisions|no-dual-documentation|No dual documentation: the day a unit goes live, its paper medication record is retired; paper is used only during downtime.|golive|0.9|Do nurses keep paper charts after go-live?|
14|projects|decisions|override-reason-high-alert|A reason is required to override a scan only for high-alert drugs (insulin, heparin, opioids, potassium), not for every medication.|alerts|0.8|For which drugs must a nurse give a reason to skip the scan?|
14|projects|decisions|four-hour-class|Training is a mandatory four-hour hands-on class plus a 45-minute e-learning; there is no e-learning-only path.|training||Can staff just do the online module instead of the classroom session?|
15|projects|decisions|superuser-ratio|During go-live week there is one super-user for every eight nurses on each shift, nights included.|golive||How much floor support is planned per shift during launch week?|
16|projects|decisions|golive-monday-0730|Go-lives start at 07:30 on a Monday, not overnight, so pharmacy and day-shift super-users are on site.|golive|0.7|Why do launches start on a Monday morning?|
18|projects|decisions|hl7-stays-v2|Lab and ADT feeds stay on HL7 v2 through Rhapsody; FHIR is used only for the new patient portal pilot.|interfaces||Is the lab feed moving to FHIR?|
21|projects|decisions|french-default|The Halcyon screens are deployed in French by default, with English available per user, to comply with the Charter of the French language.|language|0.7|What language do the screens show out of the box, and why?|
21|projects|decisions|wow-not-wall|6 Nord gets 22 new workstations on wheels instead of wall-mounted bedside terminals, because the rooms are too small to mount them.|hardware||Why no wall-mounted computers in the pilot unit's rooms?|
22|projects|decisions|tap-badge-login|Nurses log in by tapping their badge (single sign-on) so they don't retype a password 70 times a shift.|access||How do nurses sign in to the workstations?|
23|projects|decisions|power-bi-dashboard|The scanning-compliance dashboard is built in Power BI rather than the vendor's reports because it needs hourly refresh and unit drill-down.|reporting||Why aren't we using Halcyon's reports for scan compliance?|
24|projects|decisions|copy-forward-off|Copy-forward of nursing notes is turned off, except for lines, drains and airways rows.|documentation||Can nurses copy last shift's note forward?|
25|projects|decisions|moderate-interactions-suppressed|Moderate drug-interaction alerts are suppressed for nurses at administration; only major interactions fire.|alerts||Which interaction alerts still fire when a nurse gives a dose?|
28|projects|decisions|vendor-elbow-support|Six Halcyon at-the-elbow staff are contracted for go-live week rather than pulling nurses off other units.|golive||Where is the extra go-live week help coming from?|
29|projects|decisions|tst-trn-prd|Build changes move TST to TRN to PRD; nothing is ever built directly in production.|build|0.8|Can Thi fix something directly in production?|
32|projects|decisions|portal-2027|The patient portal launch is pushed to 2027 so the team can focus on eMAR.|portal||What happened to the patient portal plans?|
36|projects|decisions|scan-target-95|The target is 95% of administrations scanned by the end of each unit's first month live.|metrics|0.7|What scanning rate should a unit hit after a month live?|
39|projects|decisions|patients-own-meds|Patients' own medications are given with an override reason of unlabelled product, and pharmacy relabels them within 24 hours.|pharmacy||What happens with patients' own pills?|
45|projects|decisions|wave2-units|Wave 2 covers 4 Sud, 5 Nord, 7 Est and the short-stay unit, all going live together.|waves||Which units are in the second rollout group?|
*20-100|projects|decisions|servicenow-tickets|All eMAR issues are tracked in ServiceNow under the assignment group INF-EMAR.|tickets||
*30-120|projects|decisions|bca-pcs-ups|Each unit's downtime PC is plugged into a red emergency-power outlet with its own printer.|downtime||
60|projects|decisions|insulin-sliding-scale|Sliding-scale insulin orders are replaced by a basal-bolus order set built with the endocrinologists.|ordersets||What replaced the old insulin orders in the build?|
*60-140|projects|decisions|session-timeout|Shared workstations lock after 5 minutes idle; a badge tap unlocks them.|access||
*30-110|self|decisions|jlpt-december|Mireille decided to sit the JLPT N4 in December rather than July to have time to finish Genki II.|japanese|0.6|When am I taking the Japanese proficiency exam, and why then?|
*30-120|self|decisions|buy-truing-stand|Mireille decided to buy her own Park Tool TS-2.2 truing stand instead of borrowing the co-op's.|bikes||What did I decide about the truing stand?|
*50-150|self|decisions|sell-motobecane|Mireille decided to sell the Motobecane Grand Record to make room and fund parts for the Peugeot.|bikes||Which bike did I decide to sell, and why?|
"""

PROCEDURES = r"""
10|work|procedures|downtime-procedure|Downtime: print the latest four-hour medication report from the unit's downtime PC, chart on the paper downtime forms, and back-enter every dose within four hours of the system coming back.|downtime|0.9|What do nurses do when the system is down?|
11|work|procedures|change-request|To request a build change: open a ServiceNow change request with the clinical reason and a mock-up; it is reviewed at the Tuesday change advisory board.|build|0.8|How does a unit request a change to a screen?|
15|work|procedures|unreadable-wristband|If a wristband won't scan: reprint it from the admission screen; never type the patient number by hand, and record the reason.|scanning|0.8|What should a nurse do when the ID band doesn't read?|
17|work|procedures|ah223-report|For a medication near miss: fill in the AH-223 incident report before the end of the shift and tell the nurse manager.|safety|0.9|What paperwork follows a medication near miss?|
18|work|procedures|pump-library-update|Pump library update: Bernard builds the drug list, Thi checks it in TST, biomed pushes it wirelessly overnight, and the unit checks the version number on two pumps the next morning.|pumps|0.7|How do new drug limits get onto the infusion devices?|
22|work|procedures|new-user-access|New staff access: the unit manager signs the access form in the portal, the user completes the e-learning, and the account is activated the next business day.|access||How does a new nurse get system access?|
25|work|procedures|golive-escalation|During go-live, problems are called in to the command centre in room 2B-110 at extension 4455 and triaged red, yellow or green.|golive|0.8|What number do units call during go-live?|
28|work|procedures|superuser-day|Super-user prep day: a morning on the workflows in TRN, an afternoon of scenarios on a mock patient, then a sign-off quiz that needs 85%.|training||What does the super-user preparation day involve?|
31|work|procedures|refresh-trn|To refresh the training environment: ask Trevor five business days ahead; the vendor copies PRD build into TRN overnight and reloads the fake patients.|training||How do we refresh the classroom environment from production?|
35|work|procedures|expense-logibec|Work expenses are claimed in Logibec within 30 days with scanned receipts and Stephane as approver.|admin||How do I get paid back for work expenses?|
*20-80|work|procedures|book-training-room|Training rooms are booked in the Outlook resource calendar; the big one is Salle Mansfield on the second floor.|training||How do I reserve a training room?|
38|work|procedures|scanner-swap|When a scanner breaks: take a loaner from the biomed cage in B-014, log the serial on the swap sheet, and open a ticket for Luc.|scanning||What do I do with a dead handheld reader?|
44|work|procedures|report-request|New report requests go through a form on the informatics intranet; Gabriel estimates them at the Monday triage and Nadia reviews any patient-level fields.|reporting||How do I ask for a new data report?|
*40-120|work|procedures|oiiq-renewal|Mireille renews her OIIQ nursing licence online before 31 March and logs her 20 hours of continuing education in the member portal.|licence|0.7|What do I need to do every year to keep my nursing licence?|
*50-140|work|procedures|order-set-approval|New order sets go to the clinical content committee, which meets the first Tuesday of each month; pharmacy signs off before build.|ordersets||What's the approval path for a new set of standard orders?|
*0-40|bikes|procedures|cotter-pins|To remove a cottered crank, support the arm on a block and use the cotter press; never hammer a cotter on a bike you want to keep original.|bikes|0.7|How do I remove cottered cranks without damaging them?|
*10-80|bikes|procedures|wax-chain|Chain waxing: strip the chain in mineral spirits, dry it, soak 10 minutes in melted paraffin with PTFE, then hang it to cool.|bikes||What's my routine for treating a chain?|
*20-100|bikes|procedures|glue-tubulars|Gluing tubulars: three thin coats of Mastik One on the rim, one on the tyre base tape, 24 hours between coats, and no riding for a day after mounting.|bikes||How do I stick sew-up tyres onto rims?|
*20-120|bikes|procedures|ship-frame|To ship a frame: strip the parts, wrap the tubes in pipe insulation, box it in a bike-shop carton and send it with Purolator, insured.|bikes||How do I send a frame to a buyer?|
*30-130|bikes|procedures|chrome-rust|Rust on chrome: rub with aluminium foil dipped in water, wipe dry and finish with car wax.|bikes||How do I clean up pitted plating?|
21|home|procedures|miso-fluids|Miso gets 100 ml of subcutaneous fluids every second evening, warmed in a bowl of water, with a new needle each time.|pets|0.7|How do I give the cat his fluids?|
*0-40|home|procedures|miso-kidney-diet|Miso eats renal wet food, a quarter can three times a day, and his water fountain filter is changed every four weeks.|pets|0.7|How is the cat fed?|
*10-90|self|procedures|taxes-quebec|Mireille files both the federal and the Revenu Quebec returns in Wealthsimple Tax before 30 April.|admin||How do I handle my yearly tax returns?|
*30-120|work|procedures|float-nurse-access|A float nurse gets access to another unit through the staffing office, which assigns a temporary unit role that expires at the end of the shift.|access||How does a nurse borrowed from another unit get into its patient list for one shift?|
*20-140|bikes|procedures|french-bb-chase|To clean up a French bottom bracket shell, chase it with the French-threaded taps from the co-op's Park BTS-1 kit and plenty of cutting oil.|bikes||How do I prepare the crank housing threads on a French frame?|
*0-60|japanese|procedures|anki-routine|Every morning Mireille does her Anki reviews first, then 10 new kanji, before her tea.|japanese||What's my daily study routine for characters?|
*20-120|home|procedures|snow-removal|When a snow removal sign goes up on 3e Avenue, move the car to the Rosemont arena lot before 19:00.|home||What do I do when the city posts towing signs on my street?|
"""

EVENTS = r"""
98|projects|events|golive-6nord|6 Nord went live on the eMAR and bedside scanning on Monday 13 April at 07:30; the first day had 212 scanned doses and no serious errors.|golive|0.9||
37|work|events|ice-storm|The 11 February ice storm cut power to pavilion C for six hours and the units ran on downtime forms all afternoon.|downtime|0.7|Which building lost power in the February freezing rain?|~pavilion C lost power at 12:40
74|work|events|cabane-a-sucre|The informatics team went to the sugar shack at Cabane Chez Dany in Rigaud on 20 March.|team||Where did the team go for the spring outing?|
142|work|events|cnia-poster|Mireille presented a poster on scanning compliance at the Canadian nursing informatics conference in Halifax on 27 May.|conference||What did I present at the conference in Nova Scotia?|
154|projects|events|wave2-golive|Wave 2 went live on 8 June across four units; the short-stay unit struggled with its scanners on day one.|golive||Which unit struggled in the second rollout?|~Short-stay unit scanners kept dropping
159|bikes|events|peugeot-best-in-show|Mireille's 1973 Peugeot PX-10 won best in show at the Velo Vintage Montreal swap meet on 13 June.|bikes|0.7|Did my restored French racer win anything?|~Best in show
61|family|events|laurence-sherbrooke|Laurence's water polo team won bronze at the provincial tournament in Sherbrooke on 7-8 March.|family||Did my daughter win a medal this spring?|
132|family|events|annick-visit|Annick and Felix came down from Quebec City for the Victoria Day long weekend and went to the Biodome.|family||
119|self|events|jlpt-mock|Mireille scored 118 out of 180 on an N4 mock exam on 4 May; listening was her weakest section.|japanese||How did my practice exam go?|
21|work|events|maxime-first-build|Maxime's first build went to production on 26 January: a new wound-care flowsheet row.|mentoring||What was the first thing the new analyst built?|~Maxime's first build
"""

# --------------------------------------------------------------------------
# changes of mind: d1|domain|facet|key1|value1|d2|key2|value2|themes|question
# --------------------------------------------------------------------------
PAIRS = r"""
2|projects|decisions|golive-16-march|The 6 Nord go-live is planned for Monday 16 March.|52|golive-13-april|The 6 Nord go-live moved to Monday 13 April because the scanner shipment was delayed four weeks.|golive|When is the first unit switching on the new system?
2|people|facts|josee-runs-6nord|Josee Tremblay runs 6 Nord day to day and chairs its unit council.|120|marc-andre-interim|Marc-Andre Dube is interim nurse manager of 6 Nord while Josee is on preventive leave.|pilot|
1|japanese|preferences|class-tuesday|Mireille's Japanese class is on Tuesday evenings at the Centre culturel japonais.|60|class-wednesday|Mireille's Japanese class moved to Wednesday at 18:00 and is now online.|japanese|When is my weekly Japanese lesson now?
3|japanese|preferences|aiko-sunday-9|Lessons with Aiko are Sunday mornings at 9:00.|88|aiko-saturday-8|Lessons with Aiko moved to Saturday at 8:00 after Sendai's school term started.|japanese|What time is my session with my tutor?
0|self|preferences|commute-metro|Mireille takes the orange line from Rosemont to the hospital.|100|commute-bike|Mireille rides her Raleigh commuter to work along the Rachel Street bike path now that the snow is gone.|commute|How do I get to the hospital these days?
4|work|preferences|one-on-one-wednesday|The 1:1 with Stephane is on Wednesdays at 10:00.|67|one-on-one-thursday|The 1:1 with Stephane moved to Thursdays at 13:30.|meetings|When is my weekly catch-up with my director?
7|work|procedures|cab-tuesday|The change advisory board meets on Tuesdays at 14:00.|105|cab-monday|The change advisory board now meets Mondays at 11:00 so approved changes can go in on Tuesday night.|build|Which day does the change review meeting happen now?
9|projects|decisions|news2-threshold-5|The deterioration alert fires at a NEWS2 score of 5 or more.|84|news2-threshold-7|The deterioration alert threshold was raised to a NEWS2 of 7 after the pilot showed too many false alarms; 5 and 6 now only colour the banner.|alerts|At what NEWS2 score does the pop-up go off?
2|people|facts|maxime-order-sets|Maxime is assigned to order sets with Thi.|95|maxime-interfaces|Maxime moved to the interface team under Karim, since HL7 suits his analytic side.|team|Which team is the junior analyst on now?
0|work|facts|huddle-845|The informatics team huddle is at 8:45 every weekday in room D-301.|57|huddle-815|The team huddle moved to 8:15 so it ends before the units' 8:30 safety huddles.|meetings|What time is the team huddle now?
3|home|facts|miso-dry-food|Miso eats Hill's dry senior food.|35|miso-renal-food|After his kidney bloodwork, Miso switched to the renal wet diet.|pets|What food is the cat on now?
7|family|facts|laurence-polo-mon-wed|Laurence has water polo practice Monday and Wednesday at the Cegep du Vieux Montreal pool.|70|laurence-polo-tue-thu|Laurence's water polo moved to Tuesday and Thursday at Centre Claude-Robillard.|family|Which evenings do I drive my daughter to the pool?
1|family|facts|benoit-theatre-evenings|Benoit works evenings at the theatre, so Mireille does weekday dinners.|110|benoit-studio-days|Benoit took a daytime job at a recording studio in Mile End, so he cooks on weekdays now.|family|Who is making dinner on weeknights?
8|bikes|preferences|project-peugeot|The current workshop project is the 1973 Peugeot PX-10.|125|project-raleigh-pro|With the Peugeot finished, the current workshop project is a 1978 Raleigh Professional in Flamboyant red.|bikes|Which bike is my current project in the basement?
2|work|facts|office-pavilion-b|Mireille's office is B-318 in pavilion B.|77|office-d412|Mireille's office moved to D-412 on the new informatics floor in pavilion D.|office|Which room is my office in?
4|work|preferences|wfh-friday|Mireille works from home on Fridays.|91|wfh-monday|Mireille works from home on Mondays now, since Friday afternoons are for unit rounds.|remote|Which day am I remote?
10|people|facts|trevor-pm|Trevor Ames is the vendor's project manager for the hospital.|118|olga-pm|Olga Brandt replaced Trevor Ames as Halcyon's project manager for CHU Sainte-Odile.|vendor|Who is the vendor's lead for our account these days?
11|work|facts|class-mansfield|eMAR classes are held in Salle Mansfield.|80|class-4b|eMAR classes moved to the new simulation room 4B, which has real hospital beds.|training|Where does eMAR training happen now?
4|people|facts|bernard-dictionary|Bernard Ostrowski is the contact for medication dictionary changes.|115|aline-dictionary|Aline Messier covers medication dictionary changes while Bernard is on sabbatical until September.|pharmacy|Who handles medication dictionary changes right now?
11|projects|decisions|heparin-all-cosign|Every heparin dose needs a second nurse's co-signature in the eMAR.|93|heparin-bolus-cosign|Only heparin boluses and infusion rate changes need a second nurse's co-signature now.|pharmacy|Which anticoagulant actions need a second nurse to verify?
20|family|events|huguette-surgery-may|Huguette's hip replacement is booked for 12 May at the CHR de Trois-Rivieres.|127|huguette-surgery-june|Huguette's hip surgery was moved to 2 June because the surgeon was away.|family|When is my mother's hip operation?
30|self|events|japan-october|The Japan trip (Kyoto and the Shimanami Kaido by bike) is planned for October 2026.|106|japan-spring-2027|The Japan trip is pushed to April 2027, for the cherry blossoms and because wave 3 lands in October.|travel|When am I going to Japan?
6|bikes|preferences|coop-thursday|Mireille volunteers at the co-op La Chaine Rouge on Thursday evenings.|78|coop-saturday|Mireille volunteers at La Chaine Rouge on Saturday mornings now, because Thursdays clash with Maxime's mentoring prep.|bikes|When do I help out at the community bike workshop?
14|work|preferences|cno-report-slides|The monthly report to Francine is a slide deck.|64|cno-report-one-page|The monthly report to Francine is now a one-page PDF dashboard, no slides.|reporting|What format does the head of nursing want for the monthly report?
7|family|facts|huguette-biweekly|Mireille visits her mother in Trois-Rivieres every other Sunday.|150|huguette-weekly|Mireille goes to Trois-Rivieres every Sunday while her mother recovers from surgery.|family|How often am I going to Trois-Rivieres these days?
14|work|procedures|compliance-weekly-email|Scan compliance numbers go out as a weekly email to nurse managers.|108|compliance-daily-board|Scan compliance numbers are shown daily on the unit huddle boards, straight from Power BI.|metrics|How do unit managers see their scanning numbers now?
3|self|preferences|kanji-wanikani|Mireille learns kanji with WaniKani.|50|kanji-anki|Mireille dropped WaniKani and now learns kanji with her own Anki deck built from the Genki readings.|japanese|What do I use to learn kanji now?
16|projects|decisions|wave2-may|Wave 2 is scheduled for the week of 18 May.|112|wave2-june|Wave 2 is rescheduled to 8 June to give 6 Nord's scanning rate time to stabilise.|waves|
9|self|preferences|physio-monday|Knee physio is every second Monday at 17:00.|73|physio-friday|Knee physio moved to every second Friday at 7:30 before work.|health|When are my knee appointments?
15|people|preferences|helene-email|Dr. Bouchard prefers email for alert questions.|96|helene-teams|Dr. Bouchard wants alert questions in the #alertes Teams channel so the pharmacists see them too.|alerts|Where should I send alert questions for the CMIO?
"""

# --------------------------------------------------------------------------
# keyed facts: day|domain|subject|attribute|value|question
# --------------------------------------------------------------------------
FACTS = r"""
0|self|mireille|employer|CHU Sainte-Odile|
0|self|mireille|job-title|Clinical Informatics Lead|
130|self|mireille|job-title|Manager, Clinical Informatics|
1|self|mireille|neighborhood|Rosemont|
2|self|mireille|phone|Motorola Edge 40|
76|self|mireille|phone|Samsung Galaxy S25|Which phone am I using at the moment?
3|self|mireille|oiiq-permit|permit 1912-4471|What's my nursing permit number?
6|self|mireille|jlpt-level|N5|
138|self|mireille|jlpt-level|N4 mock passed|
8|self|mireille|kanji-known|310|
62|self|mireille|kanji-known|455|
151|self|mireille|kanji-known|590|How many kanji do I know by now?
*|self|mireille|family-doctor|Dr. Sylvie Cote, GMF Rosemont|Who is my GP?
*|self|mireille|passport-expiry|3 November 2027|When does my passport run out?
*|self|mireille|ramq-expiry|September 2028|When does my health card expire?
10|self|mireille|blood-type|A negative|What's my blood group?
*|self|mireille|birthday|14 October|
*|self|mireille|mobile-carrier|Fizz|
0|bikes|collection|count|6 bikes|
10|bikes|collection|count|7 bikes|
124|bikes|collection|count|6 bikes|
126|bikes|collection|count|7 bikes|
160|bikes|collection|count|8 bikes|How many bikes do I own now?
12|bikes|peugeot|frame-size|56 cm|How big is the PX-10's frame?
*|bikes|peugeot|serial|PX10 2871543|
*|bikes|raleigh-pro|frame-size|58 cm|
*|bikes|raleigh-commuter|tyres|700x35 Schwalbe Marathon|
4|home|miso|microchip|124000310044512|What's the cat's chip number?
4|home|miso|weight|5.9 kg|
36|home|miso|weight|5.4 kg|How heavy is the cat?
*|home|miso|creatinine|182 umol/L|
3|home|triplex|condo-fee|215 CAD a month|How much are our monthly co-ownership charges?
*|home|triplex|insurance|Desjardins home policy|
*|home|laurence|school|Ecole Pierre-Dupuy|
105|work|6nord|scan-rate|88%|
119|work|6nord|scan-rate|93%|
134|work|6nord|scan-rate|96.1%|
0|work|emar|superusers-trained|0|
42|work|emar|superusers-trained|38|
84|work|emar|superusers-trained|61|
140|work|emar|superusers-trained|104|How many floor champions have finished their preparation?
0|work|halcyon|version|2025.2|
49|work|halcyon|version|2025.4|
126|work|halcyon|version|2026.1|Which Halcyon version is production on?
*|work|rhapsody|version|7.3|
*|work|hospital|beds|412|How many beds does the hospital have?
*|work|hospital|address|4800 boulevard Saint-Laurent, Montreal|
98|work|emar|go-live-units|6 Nord|
155|work|emar|go-live-units|6 Nord, 4 Sud, 5 Nord, 7 Est, short-stay unit|
0|work|emar|budget|3.4 M CAD|
87|work|emar|budget|3.9 M CAD|What's the total budget for the medication record project?
*|work|emar|wows-6nord|22|
*|work|servicedesk|extension|4357|What number do staff dial for the IT help desk?
*|work|command-centre|extension|4455|
*|work|alerts|news2-override-rate|91%|
*|work|alerts|bcma-override-rate|7%|
*|work|pumps|drug-library-version|v14|
102|work|pumps|drug-library-version|v15|
147|work|pumps|drug-library-version|v16|What drug list revision are the infusion pumps running?
0|work|team|size|6|
60|work|team|size|7|
*|work|interfaces|count|43|
*|work|halcyon|support-line|1-888-555-0142|
22|work|emar|open-tickets|37|
95|work|emar|open-tickets|112|
130|work|emar|open-tickets|58|How many eMAR tickets are unresolved?
*|work|hospital|parking-permit|lot P3, 92 CAD a month|
*|work|downtime-pcs|report-interval|every hour|
63|work|training|classes-held|14|
120|work|training|classes-held|63|
13|japanese|genki|chapter|Genki I chapter 9|
58|japanese|genki|chapter|Genki II chapter 14|
140|japanese|genki|chapter|Genki II chapter 18|Which chapter of the textbook have I reached?
9|japanese|anki|streak-days|41|
150|japanese|anki|streak-days|187|
*|family|laurence|water-polo-club|CAMO|
*|family|felix|age|8|
48|family|felix|age|9|
"""

COLLEAGUE_FACTS = [
    # name, extension, office, start-year, manager, language
    ("stephane", "2201", "D-400", "2022", "Francine", "French"),
    ("maxime", "2214", "D-405", "2026", "Stephane", "French"),
    ("karim", "2208", "D-407", "2019", "Stephane", "French"),
    ("thi", "2209", "D-407", "2018", "Stephane", "English"),
    ("gabriel", "2211", "D-409", "2021", "Stephane", "French"),
    ("helene", "3100", "A-210", "2017", "the director of professional services", "French"),
    ("francine", "3001", "A-200", "2015", "the CEO", "French"),
    ("bernard", "5120", "pharmacy basement", "2012", "the head of pharmacy", "English"),
    ("nadia", "3310", "A-240", "2020", "the legal director", "French"),
    ("luc", "6600", "B-014", "2009", "the director of technical services", "French"),
    ("josee", "6610", "6 Nord station", "2014", "Francine", "French"),
]
COLLEAGUE_FACT_QS = {
    ("karim", "extension"): "What's the phone extension for the interface analyst?",
    ("thi", "language"): "Does Thi work better in French or English?",
    ("gabriel", "manager"): "Who does the reporting analyst answer to?",
    ("luc", "office"): "Where do I find the biomed engineer's office?",
    ("helene", "start-year"): "Since when has the CMIO been at the hospital?",
    ("nadia", "extension"): "How do I reach the privacy officer by phone?",
}

KV = r"""
0|halcyon-tst-url|https://tst.halcyon.chuso.local|
1|halcyon-trn-url|https://trn.halcyon.chuso.local|Where do I log in to the classroom copy of the EHR?
2|wifi-hospital-ssid|CHUSO-Personnel|What's the staff wifi network called at work?
2|wifi-home-ssid|Atelier-Miso|
3|preferred-meeting-time|10:00-12:00 Tuesday to Thursday|When do I like meetings booked?
4|powerbi-workspace|Informatique clinique - Conformite BCMA|Which workspace holds the scanning dashboard?
5|locker-code|3-18-27|What's the combination on my locker?
5|coffee-near-hospital|Cafe Olimpico on Saint-Viateur|
6|lunch-spot|the pho place on Jean-Talon|
6|favorite-restaurant|Le Petit Alep on Jean-Talon|Where do I like to eat out?
7|bike-shop|Cycle Pop on Rachel|
7|parts-supplier|Velo Orange and eBay France for Simplex parts|Where do I order vintage French parts?
8|current-book|Klara and the Sun, in Japanese graded reader form|
8|podcast|Nihongo con Teppei|Which show do I listen to for listening practice?
9|aeroplan-number|AP 518 224 907|What's my frequent flyer number?
9|scrubs-size|women's medium tall|
10|notes-app|OneNote|Where do I keep personal notes?
11|password-manager|Bitwarden|
12|japanese-dictionary-app|Takoboto|Which app do I use to look up Japanese words?
12|ime|Google Japanese input, romaji mode|
13|workshop-stand|Park Tool PCS-10|
14|saddle|Ideale 92 in black leather|What seat is on my restored Peugeot?
15|tyre-pressure-commuter|70 psi front, 80 rear|How hard do I pump the commuter's tyres?
16|strava|mireille.roule|
17|side-project|a bilingual glossary of eMAR terms for new nurses|What's my personal work project on the side?
18|emergency-contact|Benoit, 514-555-0198|Who should be called if something happens to me?
19|wine|Blaufrankisch from Domaine Les Brome|Which wine do I like?
19|cheese|Le Riopelle de l'Isle|
20|cinema|Cinema du Parc|
20|grocery|Marche Jean-Talon on Saturdays|
21|hairdresser|Salon Coupe Rosemont, every 8 weeks|
21|pharmacy|Jean Coutu on Masson|Which drugstore do I use?
22|stm-card|Opus card with monthly pass|
22|car|2017 Subaru Impreza|
23|car-plate|W61 KTR|What's my licence plate?
23|gym|none; cycling and physio exercises|
24|miso-vet-phone|514-555-0130|
24|miso-insurance|Trupanion|
25|benoit-theatre-line|514-555-0177|
26|laurence-coach|Coach Yannick at CAMO|Who is Laurence's water polo coach?
26|felix-address|82 rue Saint-Jean, Quebec|
27|huguette-address|1140 rue Laviolette, Trois-Rivieres|What's my mum's street address?
28|annick-phone|418-555-0163|
31|home-insurance-policy|Desjardins 44-871-220|
33|snow-removal-alerts|Info-Neige app|Which app tells me when the street gets plowed?
35|miso-renal-food|Royal Canin Renal wet, bought at Mondou|Where do I buy the cat's special food?
38|sugar-shack|Cabane Chez Dany, Rigaud|
39|conference-budget|2,000 CAD per year|What's my yearly conference budget?
40|learning-budget|600 CAD for courses|
41|italki-rate|32 USD per hour|What's my tutor's hourly rate?
107|jlpt-registration|Japan Foundation Toronto, December session|
43|genki-workbook|Genki II workbook, 3rd edition|
44|scanner-loaner-cage|B-014, code 2580|What's the code for the cage where spare scanners are kept?
45|golive-checklist|SharePoint / eMAR / Go-live / 6 Nord checklist v7|
46|command-centre-room|2B-110|
47|superuser-vests|orange, with SUPER-UTILISATEUR on the back|How do nurses spot the floor champions during launch?
48|pump-library-folder|chuso-fs02 / pharmacie / pompes|
49|halcyon-release-notes|Halcyon Community portal, 2025.4 notes|
100|cnia-abstract-id|CNIA-2026-P-117|
120|halifax-hotel|Westin Nova Scotian, 26-29 May|Where am I staying in Halifax?
121|halifax-flight|AC 618, YUL-YHZ, 26 May 08:00|
137|poster-printer|Copie Express on Sherbrooke|
54|physio-clinic|Physio Rosemont, 5-minute walk from home|
55|knee-exercises|clamshells, wall sits, step-downs|What exercises am I supposed to do for my knee?
56|peugeot-paint|original Blanc Alpin with Reynolds 531 decals|
57|peugeot-parts|Simplex Prestige derailleur, Stronglight 93 cranks, Mafac Racer brakes|What components are on the PX-10?
126|raleigh-pro-buy|found on Kijiji in Sherbrooke for 650 CAD|How much did I pay for the red English racer?
118|motobecane-price|listed at 900 CAD on Kijiji|
140|velo-vintage-date|13 June, Marche Bonsecours|
150|swap-meet-table|table 14, shared with Gilles|
79|coop-hours|Saturday 9:00-13:00|
63|coop-address|La Chaine Rouge, 6550 rue Saint-Hubert basement|What's the address of the bike co-op?
64|brazing-rod|silver-bearing rod from Gilles' stock|
66|shun-meetup|Cafe Myriade on Mackay, every other Tuesday|Where do I meet my language partner?
67|jlpt-study-plan|Genki II by September, then past papers|
70|japan-trip-budget|7,500 CAD for two|
69|japan-rail|Japan Rail Pass not worth it; regional passes instead|
72|shimanami-rental|Giant Store Onomichi|
106|kyoto-ryokan-shortlist|Hiiragiya, Tawaraya, Yoshida-sanso|
72|laurence-polo-fees|640 CAD a season|
57|sherbrooke-hotel|Delta Sherbrooke, 7-8 March|
110|huguette-surgeon|Dr. Mathieu Lefebvre|Who is operating on my mother?
149|huguette-physio-home|CLSC Trois-Rivieres home care|
111|benoit-studio|Studio Piccolo, rue Saint-Viateur|Which studio does my husband work at now?
78|d412-phone|2219|
78|mentoring-notes|OneNote / Maxime / 2026|
96|maxime-goals|HL7 basics, one interface spec by June|
81|sim-room|4B, pavilion A, badge access|
99|6nord-unit-clerk|Sandrine, days, ext 6612|
121|marc-andre-phone|ext 6611|How do I reach the acting unit manager?
85|news2-banner-colours|5-6 amber, 7+ red|
119|olga-email|olga.brandt@halcyonhealth.com|
150|wave2-war-room|2B-110 again, 8-12 June|
145|wave2-superusers|44 trained|
61|japanese-class-link|Teams link from the Centre culturel japonais|
89|tea-shop|Camellia Sinensis on Saint-Denis|Where do I buy my tea?
90|genmaicha-brand|Camellia Sinensis house genmaicha|
91|bike-insurance|Velo assurance via Desjardins, 8,000 CAD cover|
123|truing-stand|Park Tool TS-2.2 from Cycle Pop, 520 CAD|
93|strava-sunday-route|Mont-Royal and Oratoire loop, 42 km|How long is my Sunday ride?
94|bike-lock|Abus Granit X-Plus 540|
155|summer-vacation|Gaspesie, 20 July to 2 August|When is my summer holiday?
156|gaspesie-cottage|Chalet du Phare, Cap-Chat|
97|anniversary|18 August, married 2006|
165|anniversary-restaurant|Le Mousso|
60|cat-sitter|Emilie from upstairs, 15 CAD a visit|Who looks after Miso when we're away?
100|wealthsimple-login|in Bitwarden|
139|cnia-badge|pick up at registration, 8:00|
138|poster-file|OneDrive / CNIA / poster_final_v5.pdf|
160|wave3-units|ICU, 3 Nord, oncology|
161|wave3-date|October 2026|
"""

# --------------------------------------------------------------------------
# unique journal episodes: day|hour|text|question|also
# --------------------------------------------------------------------------
JOURNAL = r"""
0|9.1|First day of the new setup: Mireille asked me to keep track of people, decisions and procedures for the eMAR project and home.|
0|14|Maxime's first day. Mireille gave him the tour of TST and the build standards document.|
1|11|Maxime's account was created without TST access; Karim had to add the build role by hand.|What went wrong with Maxime's access in his first week?
2|16|Project kickoff with Francine and Trevor; 6 Nord confirmed as the pilot unit.|What was settled at the January project kickoff?
3|20|Benoit's premiere night at the Rideau Vert; Mireille went with Laurence.|What did I go to see with my daughter in early January?
7|8.9|The interface engine queue backed up overnight; 3,100 lab results were delayed about two hours until Karim restarted the outbound channel.|What happened to the lab results feed in the second week of January?|~Lab results caught up
7|10.5|Lab results caught up after the channel restart; Karim added a queue-depth alert at 500 messages.|
8|14|Thi demoed the first draft of the medication administration screen to the 6 Nord nurses.|Who showed the first version of the medication screen to the pilot nurses?
9|19.5|Mireille found a 1973 Peugeot PX-10 frame at a garage sale listing in Verdun for 180 CAD.|Where did I find the Peugeot frame, and what did it cost?
10|19.5|Thursday evening at the co-op: Gilles showed Mireille how to check frame alignment with a string.|
13|10|Mireille's Genki I chapter 9 test with Aiko: 84%.|
14|15|First wristband printing test: the linear barcode failed on 4 of 10 small wrists.|What went wrong in the first ID band print test?
15|10|Francine asked for a monthly report on eMAR readiness starting in February.|What did the head of nursing ask me for in mid-January?
16|13|Night-shift nurses on 6 Nord said the medication screen font is too small on the workstation carts.|What complaint did the night nurses make about the new medication screen?
17|18|Miso threw up twice and skipped dinner; booked Dr. Paquette for Monday.|
21|9|Miso's bloodwork showed early kidney disease; creatinine 182.|What did the cat's blood test show in January?
21|15|Maxime's first build went to production: a wound-care flowsheet row. Mireille bought him a coffee.|
22|16|Super-user recruitment closed on 6 Nord: 24 volunteers from 58 nurses.|How many champions did the pilot floor recruit?
23|12|Halcyon sent the scanner delivery date: late February.|
27|11|Mireille and Sunita rode the snow bikes on the canal path in -18 degrees.|
25|10|Laurence's report card came in: 91 in chemistry, struggling a bit in history.|How were my daughter's grades this winter?
28|14|Downtime drill on 6 Nord: nurses found the downtime PC printer out of toner.|What problem turned up during the downtime drill?
30|15|Dr. Bouchard agreed to the NEWS2 alert after seeing 30 days of override data.|
31|17|Stephane approved the budget for six vendor at-the-elbow staff.|
35|9.5|Vet recheck: Miso down to 5.4 kg; starting the renal diet.|
37|13|Ice storm: pavilion C lost power at 12:40; 4 Sud and 5 Nord switched to downtime forms.|
37|19|Power back in pavilion C after six hours; back-entry of doses started at 19:30.|
39|11|Met Bernard about patients' own medications; pharmacy will relabel within a day.|
43|16|Scanner shipment delayed: Zebra backorder of four weeks.|Why was the pilot launch delayed?
47|14|Felix's ninth birthday party in Quebec City; Mireille brought the Lego freight train set.|What did I give my nephew for his birthday?
49|21|Halcyon 2025.4 upgrade done overnight; 20 minutes of planned downtime.|
51|10|Trevor confirmed 13 April for the go-live in writing.|
56|15|Training launched: first four-hour class for 6 Nord with 12 nurses.|
59|11|Maxime asked to move to interfaces; Mireille will talk to Karim and Stephane.|
61|17|Laurence's team won bronze in Sherbrooke; she scored twice in the final.|
64|9|Sent Francine the first one-page readiness PDF instead of slides.|
66|18|Mireille passed her OIIQ renewal and logged 22 hours of continuing education.|
70|10|Would-have-been go-live day; spent it on a dress rehearsal in TRN instead.|
74|18|Sugar shack outing in Rigaud: Maxime ate four plates of pancakes.|What happened at the team's maple-syrup lunch?
78|12|Scanners arrived: 30 Zebra units unpacked in B-014.|
84|16|Pilot data on NEWS2: 64 alerts a day on 6 Nord at threshold 5, most overridden.|
91|15|Go/no-go meeting: all green except one printer; decision is go.|
98|7.6|6 Nord go-live day one: 07:30 switch, command centre open, 212 scanned doses by 19:00.|
98|13|First red ticket at go-live: heparin infusion rate change would not co-sign; Thi fixed the rule in 40 minutes.|What was the most serious problem on launch day?
99|10|Day two of go-live: scanning rate 82%, mostly misses on the night shift.|
104|9|Mireille finished the Peugeot: new Ideale saddle and the original Mafac brakes rebuilt.|
106|20|Mireille and Benoit pushed the Japan trip to April 2027 because wave 3 lands in October.|
109|15|Scanning rate reached 88% on 6 Nord after the night-shift refresher.|
112|11|Steering committee moved wave 2 to 8 June.|
116|13|Mireille got the CNIA poster acceptance email.|
120|10|Josee went on preventive leave; Marc-Andre Dube is interim manager on 6 Nord.|
124|18|Sold the Motobecane to a collector from Ottawa for 850 CAD.|How much did the Motobecane go for?
127|9|Huguette's surgery postponed; the surgeon is at a conference.|
130|16|Mireille's promotion to Manager, Clinical Informatics was announced at the directors' meeting.|What happened to my title in May?
134|11|6 Nord hit 96% scanning; Francine sent a thank-you note to the unit.|
132|17|Annick and Felix at the Biodome; Felix wanted to stay with the penguins all day.|
142|14|Poster session in Halifax: about 40 people stopped by; two hospitals asked for the dashboard template.|What interest did my poster get at the conference?
148|12|Huguette's hip replacement went well; she was walking with a frame the same evening.|How did my mother's surgery go?
154|7.8|Wave 2 go-live: four units switched at 07:30.|
154|14|Short-stay unit scanners kept dropping Bluetooth pairing; Luc swapped eight cradles.|
159|16|Best in show at Velo Vintage for the Peugeot; a collector offered 2,500 CAD, Mireille said no.|
161|10|Olga and Mireille started planning wave 3 for the ICU, 3 Nord and oncology.|
160|15|Bought a 1981 Miyata 912 frame at the swap meet leftovers sale; it is a mess but lugged.|Which bike did I pick up after the swap meet?
168|11|Laurence started a summer job as a lifeguard at the Rosemont pool.|What summer job did my daughter get?
172|13|Maxime presented his first interface spec (the pharmacy dispensing cabinet feed) to the team.|
176|10|Q3 planning: wave 3 readiness plus the insulin order set audit.|What's on my plate for the third quarter?
178|15|Wave 2 units all above 90% scanning for the first time.|
"""

WEEKLY_FOCUS = [
    "Maxime's onboarding and the medication screen build",
    "the lab feed incident follow-up and the wristband print tests",
    "the NEWS2 alert build and super-user recruitment",
    "Miso's vet visits and the downtime drill on 6 Nord",
    "the alert override data for Dr. Bouchard",
    "the first monthly readiness report and the renal diet for Miso",
    "the ice storm recovery and back-entry audit",
    "the scanner backorder and the revised go-live plan",
    "the Halcyon 2025.4 upgrade and the TRN refresh",
    "the start of eMAR classroom training",
    "Laurence's tournament in Sherbrooke and Maxime's team change",
    "dress rehearsal in TRN instead of the original go-live",
    "the sugar shack outing and unpacking the scanners",
    "super-user prep days and the NEWS2 threshold review",
    "the go/no-go meeting and Easter with Huguette",
    "the 6 Nord go-live",
    "night-shift scanning refreshers",
    "finishing the Peugeot and the Japan trip change",
    "rescheduling wave 2 and the CNIA poster",
    "Josee's leave and the interim manager handover",
    "Huguette's postponed surgery and the JLPT mock exam",
    "the promotion announcement and selling the Motobecane",
    "Annick's visit and the wave 2 super-users",
    "the Halifax conference",
    "Huguette's surgery and wave 2 readiness",
    "the wave 2 go-live",
    "the Velo Vintage swap meet and wave 3 scoping",
]
WEEKLY_FOCUS_QS = {
    1: "What was on my plate the week of 12 January?",
    6: "What was I mostly dealing with the week of 16 February?",
}

ONE_ON_ONE_TOPICS = [
    "went over the eMAR budget", "talked about Maxime's progress", "discussed the go-live staffing plan",
    "reviewed the steering committee agenda", "talked about Mireille's goals for the year",
    "discussed vendor performance", "short one, Stephane was called away", "talked about wave 3 scope",
    "reviewed open risks", "talked about the team's overtime", "discussed the report to Francine",
    "talked about hiring a second build analyst",
]
MENTOR_TOPICS = [
    "reviewed his build tickets", "talked about HL7 message structure", "went through a change request together",
    "discussed how to say no to a nurse manager", "planned his next build", "reviewed his test scripts",
    "talked about the TST to PRD path", "went over his interface spec draft",
]
STEERING_TOPICS = ["the go-live date", "training completion", "scanner delivery", "budget", "wave 2 readiness",
                   "alert override rates", "the downtime drill results", "super-user numbers", "wave 3 scope"]
CAB_OUTCOMES = ["approved {n} changes", "approved {n} changes, deferred {m}", "short agenda, {m} changes",
                "rejected one change for missing test evidence", "approved {n} changes after a long debate"]
READING = [
    ("the ISMP guidance on barcode medication administration", "workarounds rise when scanners are hard to reach"),
    ("Koppel et al. 2008 on BCMA workarounds", "nurses scan copies of wristbands when bands fail"),
    ("the Royal College of Physicians NEWS2 report", "a single parameter of 3 should also trigger review"),
    ("a JAMIA paper on alert fatigue", "override rates above 90% are common for interaction alerts"),
    ("the Canada Health Infoway adoption toolkit", "name a physician and a nurse champion per unit"),
    ("Ash et al. on unintended consequences of CPOE", "new technology creates new kinds of error"),
    ("the HL7 v2.5.1 chapter on pharmacy messages", "RAS messages carry administration records"),
    ("the OIIQ standards for documentation", "notes must be contemporaneous and signed"),
    ("a nursing informatics textbook chapter on downtime", "practise downtime twice a year"),
    ("Sheldon Brown's pages on cottered cranks", "cotters are not interchangeable between sides"),
    ("the Velo Orange blog on French threading", "Peugeots of the 1970s use French bottom brackets"),
    ("Jan Heine on tyre width", "wider tyres at lower pressure are not slower"),
    ("a JLPT N4 grammar guide", "the te-form unlocks half the N4 grammar"),
    ("Tae Kim's grammar guide", "learn transitive and intransitive verbs in pairs"),
    ("a paper on smart pump interoperability", "auto-programming cuts pump entry errors"),
    ("the Quebec guide on incident disclosure", "patients must be told about any accident that reaches them"),
    ("a post on Power BI row-level security", "filter by unit in the dataset, not the report"),
    ("the CNIA competencies framework", "informatics nurses should own workflow redesign"),
]
SUPERUSER_TOPICS = ["went over the override reasons", "practised downtime back-entry", "shared tips for scanning IV bags",
                    "collected questions from nights", "reviewed the week's red tickets", "planned coverage for the weekend",
                    "walked through the new heparin screen", "talked about the NEWS2 banner colours",
                    "short one, most were on the floor", "handed out the wave 2 schedule"]
TICKET_AREAS = ["medication screen", "NEWS2 banner", "wristband printing", "scanner pairing", "flowsheets",
                "insulin order set", "heparin protocol", "downtime report", "badge login", "Power BI dashboard",
                "lab interface", "pump library"]
TICKET_ISSUES = ["{c} freezes after scanning", "{c} shows English labels", "slow load time in {c}",
                 "wrong default dose in {c}", "{c} missing for float nurses", "{c} prints blank page",
                 "{c} needs a new field", "duplicate entries in {c}", "{c} error message unclear",
                 "{c} not refreshing", "access denied in {c}", "typo in {c}"]
UNITS = ["6 Nord", "4 Sud", "5 Nord", "7 Est", "short-stay unit", "emergency", "pharmacy"]
RESTORE_STEPS = ["stripped the {bike} down to the frame", "cleaned the {bike} headset bearings",
                 "polished the {bike} rims", "rebuilt the {bike} hubs with new grease", "trued the {bike} wheels",
                 "wrapped new cotton bar tape on the {bike}", "adjusted the {bike} brakes",
                 "measured the {bike} frame alignment", "soaked the {bike} derailleur in degreaser"]
BIKES = ["Peugeot", "Raleigh", "Motobecane", "Miyata", "commuter"]
LESSON_TOPICS = ["te-form practice", "counters for long objects", "keigo basics", "reading a train timetable",
                 "potential form", "giving and receiving verbs", "conditional forms", "a conversation about hobbies",
                 "describing a hospital visit", "listening drill with an NHK easy news article"]

PLACES = r"""
*|work|facts|org-chuso|CHU Sainte-Odile is a 412-bed teaching hospital on boulevard Saint-Laurent, affiliated with the Universite de Montreal.|hospital||
*|work|facts|org-pavilions|The hospital has four pavilions, A to D; informatics is on the fourth floor of pavilion D since March.|hospital||
*|work|facts|unit-6nord|6 Nord is a 32-bed cardiology unit with a step-down section of 8 beds.|pilot||
*|work|facts|unit-short-stay|The short-stay unit has 18 beds for admissions under 72 hours.|waves||
*|work|facts|halcyon-vendor|Halcyon Health is the EHR vendor, based in Toronto.|vendor||
*|work|facts|rhapsody-engine|The Rhapsody integration engine carries 43 interfaces.|interfaces||
*|work|facts|pumps-infusia|The IV pumps are Infusia S3 units with a wireless drug library.|pumps||
*|work|facts|badge-system|Single sign-on uses the same proximity badges as the door locks.|access||
*|work|facts|servicenow|ServiceNow is the ticketing tool for all IT and informatics requests.|tickets||
*|work|facts|cab-membership|The change advisory board has members from nursing, pharmacy, IT security and informatics.|build||
*|work|facts|simulation-centre|The simulation centre on 4B has two mannequins and real hospital beds.|training||
*|work|facts|command-centre|The go-live command centre uses room 2B-110, next to the IT help desk.|golive||
*|bikes|facts|coop-chaine-rouge|La Chaine Rouge is a volunteer-run community bike workshop in Villeray with a brazing corner.|bikes||
*|bikes|facts|velo-vintage|Velo Vintage Montreal holds its swap meet every June at the Marche Bonsecours.|bikes||
*|bikes|facts|peugeot-history|The Peugeot PX-10 was the French team race bike of the 1960s and 1970s; Mireille's is a 1973 in white.|bikes||
*|bikes|preferences|gilles-brass-not-silver|Gilles insists on silver brazing for lugged frame repairs; brass only for braze-ons.|bikes||Which filler does Gilles want for joint repairs on old frames?|
*|people|preferences|sunita-early-rides|Sunita likes to start rides at 7:00 to beat the traffic on Camillien-Houde.|bikes||What time does my riding friend want to set off?|
*|people|preferences|aiko-corrections|Aiko corrects mistakes at the end of a lesson, not mid-sentence, so Mireille keeps talking.|japanese||How does my tutor handle my errors?|
*|people|preferences|shun-french-first|Shun wants to do the French half of each exchange first, while he is fresh.|japanese||
*|self|facts|benoit-family-gaspesie|Benoit's family is from Cap-Chat in the Gaspesie; summer holidays are usually spent there.|family||Where is my husband's family from?|
*|home|facts|neighbour-emilie|Emilie upstairs has a spare key and feeds Miso when the family is away.|neighbours||Who has a spare key to our place?|
*|people|preferences|karim-sample-message|Karim wants interface problems reported in writing with a sample HL7 message attached, not described over the phone.|interfaces||How should I report an interface problem to Karim?|
*|self|preferences|workshop-radio|In the workshop Mireille keeps the radio on ICI Musique classique while she works on bikes.|bikes||What do I put on in the background while fixing bikes?|
*|family|preferences|laurence-no-photos|Laurence hates being photographed at her matches; no pictures of her on social media.|family|0.6|Can I post pictures from my daughter's matches online?|
*|self|preferences|hot-wash-next-morning|Mireille prefers to debrief each go-live day with a written hot-wash the next morning, not the same evening.|golive||When do I like to review how a launch day went?|
*|self|preferences|furigana-until-n3|Mireille wants furigana over every kanji in her graded readers until she reaches N3.|japanese||Do I want reading aids over the kanji in my graded readers?|
*120-170|people|preferences|marc-andre-board|Marc-Andre wants super-user schedules posted on the unit whiteboard, not emailed.|pilot||How does the acting manager of the cardiology floor want the champion schedule shared?|
*|home|facts|basement-workshop|The basement workshop has a Park Tool stand, a bench vise and a dehumidifier for the frames.|home||
"""

SLOTS = {
    "unit": UNITS,
    "colleague": ["Karim", "Thi", "Gabriel", "Maxime", "Stephane", "Luc", "Bernard"],
    "buildtask": ["the medication screen", "the NEWS2 banner", "the insulin order set", "the heparin protocol",
                  "the downtime report", "the wound-care flowsheet", "the scanning override reasons",
                  "the wave 2 test scripts", "the Power BI scan dashboard", "the float-nurse access roles"],
    "place": ["the cafeteria", "the pho place on Jean-Talon", "Cafe Olimpico", "the food court at the metro",
              "the staff lounge on 4", "the sandwich shop across Saint-Laurent"],
    "chat": ["the Canadiens", "the snow", "summer plans", "a Netflix series", "house prices in Montreal",
             "the new parking rates", "a podcast episode", "the construction on Saint-Laurent", "the Grand Prix",
             "the union negotiations"],
    "reminder": ["Miso's renal food order", "Laurence's water polo fees", "the Anki reviews", "calling Huguette",
                 "the physio exercises", "paying the condo fee", "booking the winter tyres removal",
                 "the Japanese homework", "renewing the Opus pass", "the co-op key"],
    "eod": ["tickets under control", "long day of meetings", "build review done", "quiet day",
            "mostly unit rounds", "two fixes moved to TRN", "good session with the super-users", "inbox at zero"],
    "evening": ["dinner with Benoit and Laurence", "an hour in the basement workshop", "Japanese homework",
                "read a graded reader", "video call with Annick", "drove Laurence to the pool", "early night"],
    "weekend": ["long ride with Sunita", "afternoon in the workshop", "Marche Jean-Talon and a slow lunch",
                "cleaned the triplex", "read on the balcony", "visited Huguette in Trois-Rivieres",
                "watched Laurence's water polo game", "cooked a big tourtiere", "walk on Mont-Royal",
                "lazy day at home with Miso"],
    "lookup": ["train times to Quebec City", "a restaurant for Saturday", "Simplex derailleur parts",
               "prices of ryokans in Kyoto", "a new saddle bag", "flights to Halifax", "a Japanese graded reader",
               "NEWS2 false alarm rates in other hospitals"],
    "ticketnote": ["{n} new, {m} closed", "nothing urgent", "one red ticket from {unit}", "{m} escalated to Halcyon",
                   "{N} open, mostly printing", "a cluster from {unit}"],
    "rounds": ["nurses asked about the override reasons", "the carts need more batteries",
               "scanners working well", "printer jam again", "night shift wants a refresher",
               "the manager asked for unit-level numbers", "staff happy with the badge login"],
    "bike": BIKES,
    "restore": [s for s in RESTORE_STEPS],
    "lesson": LESSON_TOPICS,
}
WEEKDAY = [
    (0.8, 1, 1, 7.6, 8.6, ["Triaged Mireille's inbox: {n} emails, {m} need replies.",
                            "Morning triage: {N} unread, nothing urgent.",
                            "Cleared Teams notifications; flagged {m} threads for Mireille."]),
    (0.8, 1, 2, 9, 12, ["Reviewed {colleague}'s build for {buildtask} in TST.",
                        "Reviewed {colleague}'s change for {buildtask}; sent back a few comments.",
                        "Tested {buildtask} in TST with {colleague}.", "Signed off {colleague}'s work on {buildtask}."]),
    (0.7, 1, 2, 12, 17, ["Worked on {buildtask}.", "Afternoon on {buildtask}.", "Made progress on {buildtask}.",
                          "Wrote test scripts for {buildtask}."]),
    (0.6, 1, 1, 10, 16, ["Ticket queue: {ticketnote}.", "Checked the INF-EMAR queue: {ticketnote}."]),
    (0.3, 1, 1, 12, 13.3, ["Lunch with {colleague} at {place}; talked about {chat}.",
                           "Lunch with {colleague}; talked about {chat}.", "Quick lunch at {place}."]),
    (0.45, 1, 1, 17, 20, ["Reminded Mireille about {reminder}.", "Set a reminder for {reminder}."]),
    (0.55, 1, 1, 16.5, 18, ["End of day: {eod}.", "Wrap-up: {eod}."]),
    (0.4, 1, 1, 13, 16.5, ["Unit rounds on {unit}: {rounds}.", "Walked {unit} with the super-users: {rounds}."]),
    (0.3, 1, 1, 11, 17, ["Mireille asked me to look up {lookup}.", "Looked up {lookup} for Mireille."]),
    (0.3, 1, 1, 19.5, 22.5, ["Evening: {evening}.", "{evening}."]),
    (0.25, 1, 1, 9.5, 15, ["Answered {n} questions from {unit} in the Teams channel.",
                           "Sent {colleague} notes from the {unit} rounds.", "Updated the go-live risk log.",
                           "Prepared slides for the super-user huddle."]),
    (0.35, 1, 1, 6.5, 7.4, ["Anki: {N} reviews done before tea.", "Morning kanji reviews, {N} cards.",
                            "Did {m} pages of the Genki workbook."]),
]
WEEKEND = [
    (0.95, 1, 1, 10, 19, ["Quiet weekend day; {weekend}.", "Weekend: {weekend}.", "Saturday-ish plans: {weekend}."]),
    (0.2, 1, 1, 7, 9.5, ["Anki: {N} reviews done.", "Weekend kanji reviews, {N} cards."]),
    (0.45, 1, 1, 13, 18, ["Workshop: {restore}.", "In the basement: {restore}."]),
    (0.25, 1, 1, 17, 21, ["Reminded Mireille about {reminder}.", "Evening: {evening}."]),
]

UNANSWERABLE = [
    "What is Karim's shoe size?",
    "Which dentist do I go to?",
    "What is Stephane's wife's name?",
    "What is Benoit's mother's name?",
    "What car does Thi drive?",
    "Which university did Gabriel go to?",
    "When is Maxime's birthday?",
    "What is the name of Dr. Bouchard's dog?",
    "What is the wifi password at the co-op?",
    "Which vendor makes the glucometers on 6 Nord?",
    "How do we roll back a failed Halcyon upgrade?",
    "What is the procedure for decommissioning an HL7 interface?",
    "How much did the sugar shack outing cost in total?",
    "What did we decide about voice recognition for nursing notes?",
    "What was 6 Nord's scanning rate in its first hour live?",
    "Who is the external auditor for the eMAR project?",
    "What is Annick's husband's job?",
    "How old is Raphael?",
    "What frame size is the Miyata?",
    "Which wheelset came on the Motobecane?",
    "What grade did Laurence get in math?",
    "Who won the co-op's bike polo night?",
    "What is Shun's research about?",
    "How many students does Aiko teach?",
    "Which hotel did we book in Kyoto?",
    "What did I score on the listening part of the real JLPT?",
    "On which date in October does the ICU go live?",
    "Who is the nurse manager of 7 Est?",
    "What was discussed at the board of directors meeting in March?",
    "What is Trevor's phone number?",
]

EXTRA_QUESTIONS = [
    ("event", "How did the cardiology unit's first day on the new system go?", ["p:golive-6nord", "~6 Nord go-live day one"]),
    ("fact", "What is my job title now?", ["f:self:mireille:job-title:2", "~promotion to Manager, Clinical Informatics"]),
    ("event", "What happened with the old French tourer I listed for sale?", ["~Sold the Motobecane"]),
    ("updated", "When was the second rollout wave finally scheduled?", ["p:wave2-june", "~Steering committee moved wave 2"]),
    ("updated", "Who is in charge of the cardiology floor at the moment?", ["p:marc-andre-interim", "~Marc-Andre Dube is interim"]),
    ("fact", "What's the scan rate on the pilot unit?", ["f:work:6nord:scan-rate:3", "~6 Nord hit 96% scanning"]),
    ("fact", "How many wards are running the eMAR at this point?", ["f:work:emar:go-live-units:2"]),
]


def build(b):
    rng = b.rng
    b.persona_block(PEOPLE)
    b.persona_block(SELF)
    b.persona_block(DECISIONS)
    b.persona_block(PROCEDURES)
    b.persona_block(EVENTS)
    b.persona_block(PLACES)
    b.pairs_block(PAIRS)
    b.facts_block(FACTS)
    attrs = ["extension", "office", "start-year", "manager", "language"]
    for row in COLLEAGUE_FACTS:
        name = row[0]
        for attr, val in zip(attrs, row[1:]):
            if val is None:
                continue
            label = "f:people:%s:%s:1" % (name, attr)
            d = b.rday(skew=1.8, weekday=True)
            b.add(label, d, "fact", domain="people", subject=name, attribute=attr, value=val)
            if (name, attr) in COLLEAGUE_FACT_QS:
                b.q("fact", COLLEAGUE_FACT_QS[(name, attr)], [label])
    b.kv_block(KV)
    b.journal_block(JOURNAL)

    # weekly plan on Mondays
    for w, focus in enumerate(WEEKLY_FOCUS):
        d = w * 7
        if d >= NDAYS:
            break
        key = "week-priorities-%s" % iso_date(d)
        label = "p:" + key
        b.add(label, d, "persona", hour=7.9, domain="self", facet="events", key=key,
              value="Priorities for the week of %s: %s." % (fmt_date(d), focus))
        if w in WEEKLY_FOCUS_QS:
            b.q("event", WEEKLY_FOCUS_QS[w], [label])

    # reading notes
    for i, (src, lesson) in enumerate(READING):
        d = b.rday(skew=1.0)
        b.add(None, d, "persona", domain="self", facet="beliefs", key="reading-note-%02d" % (i + 1),
              value="Reading note from %s: %s." % (src, lesson))

    # recurring series
    steer = 0
    for d in range(NDAYS):
        wd = d % 7
        if wd == (2 if d < 67 else 3):  # 1:1 with Stephane
            b.add(None, d, "persona", hour=10 if d < 67 else 13.5, domain="work", facet="events",
                  key="one-on-one-stephane-%s" % iso_date(d),
                  value="1:1 with Stephane on %s: %s." % (fmt_date(d), rng.choice(ONE_ON_ONE_TOPICS)))
        if wd == 3 and d >= 3:  # mentoring Maxime
            b.add(None, d, "persona", hour=15, domain="people", facet="events",
                  key="mentoring-maxime-%s" % iso_date(d),
                  value="Mentoring session with Maxime on %s: %s." % (fmt_date(d), rng.choice(MENTOR_TOPICS)))
        if wd == (1 if d < 105 else 0):  # change advisory board
            b.add(None, d, "persona", hour=14 if d < 105 else 11, domain="work", facet="events",
                  key="cab-%s" % iso_date(d),
                  value="Change advisory board on %s: %s." % (fmt_date(d), b.fill(rng.choice(CAB_OUTCOMES), {})))
        if wd == 4 and d % 14 == 4:
            steer += 1
            b.add(None, d, "persona", hour=9, domain="projects", facet="events",
                  key="steering-%02d-%s" % (steer, iso_date(d)),
                  value="eMAR steering committee %d on %s: mostly %s and %s." % (
                      steer, fmt_date(d), rng.choice(STEERING_TOPICS), rng.choice(STEERING_TOPICS)))
        if wd == 6 and d < 88 or wd == 5 and d >= 88:  # tutor lessons
            b.add(None, d, "persona", hour=9 if d < 88 else 8, domain="japanese", facet="events",
                  key="lesson-aiko-%s" % iso_date(d),
                  value="Lesson with Aiko on %s: %s." % (fmt_date(d), rng.choice(LESSON_TOPICS)))
    # weekly super-user huddle once training has started (Wednesdays)
    for d in range(51, NDAYS, 7):
        b.add(None, d, "persona", hour=11.5, domain="work", facet="events", key="superuser-huddle-%s" % iso_date(d),
              value="Super-user huddle on %s: %s." % (fmt_date(d), rng.choice(SUPERUSER_TOPICS)))
    # workshop log entries (weekend persona events)
    for i in range(26):
        d = b.rday(skew=1.0)
        while not is_weekend(d):
            d = b.rday(skew=1.0)
        bike = rng.choice(BIKES[:2] if d < 104 else BIKES[1:])
        b.add(None, d, "persona", domain="bikes", facet="events",
              key="workshop-log-%02d-%s" % (i + 1, iso_date(d)),
              value="Workshop log %s: %s." % (fmt_date(d), rng.choice(RESTORE_STEPS).format(bike=bike)))
    # tickets
    n = 1000
    combos = [(c, i) for c in TICKET_AREAS for i in TICKET_ISSUES]
    rng.shuffle(combos)
    days = sorted(b.rday(skew=0.8, weekday=True, lo=10) for _ in range(200))
    for d, (c, i) in zip(days, combos):
        n += rng.randint(4, 11)
        b.add(None, d, "persona", domain="projects", facet="events", key="inc-%d" % n,
              value="Ticket INC%07d (%s) from %s, assigned to %s." % (
                  n, i.format(c=c), rng.choice(UNITS), rng.choice(["Thi", "Karim", "Gabriel", "Maxime", "Luc"])))

    b.daily_journals(SLOTS, WEEKDAY, WEEKEND)
    for d in range(NDAYS):
        if is_weekend(d) or rng.random() > 0.9:
            continue
        text = b.fill(rng.choice(["Team huddle: {n} items, {m} blockers.", "Huddle: went over the ticket queue.",
                                  "Huddle: {colleague} flagged an issue on {unit}.", "Short huddle, nothing major."]), SLOTS)
        b.add(None, d, "journal", hour=8.75 if d < 57 else 8.25, content=text)
    # bursty days
    for d, start, lines in (
            (37, 12.7, ["Command centre opened for the pavilion C outage.", "Downtime reports printed on 4 Sud and 5 Nord.",
                        "Generator fault confirmed by facilities; ETA unknown.", "Pharmacy switched to paper dispensing for pavilion C.",
                        "Ice storm: pavilion C units asked to hold non-urgent admissions."]),
            (98, 8.0, ["Command centre: first yellow ticket, a scanner not paired.", "Command centre: printer on 6 Nord out of labels.",
                       "Super-users report nurses scanning fine on the day shift.", "Trevor's team fixed the badge login delay.",
                       "Midday go-live check: 96 doses scanned so far."]),
            (154, 8.2, ["Wave 2 command centre opened.", "Wave 2: 7 Est reports a slow medication screen.",
                        "Wave 2: Luc on his way to the short-stay unit with spare cradles.",
                        "Wave 2 midday check: three units green, one amber."])):
        h = start
        for line in lines:
            h += rng.uniform(0.1, 0.4)
            b.add(None, d, "journal", hour=h, content=line)
    b.unanswerable.extend(UNANSWERABLE)
    for qt, text, labels in EXTRA_QUESTIONS:
        b.q(qt, text, labels)
