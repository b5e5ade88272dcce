"""Holdout workload: an assistant agent working for Niamh Brennan, a third-year
PhD candidate in marine ecology at the University of Galway (sea urchin grazing
on kelp forests in Connemara, fieldwork from the Carna research station) who
also coaches the Salthill Rovers under-10 girls' football team.
Day 0 = Monday 5 Jan 2026.  Jan d -> day d-5, Feb d -> 26+d, Mar d -> 54+d,
Apr d -> 85+d, May d -> 115+d, Jun d -> 146+d, Jul d -> 176+d.
"""
from gen import fmt_date, iso_date, is_weekend, NDAYS, day_date

PEOPLE = r"""
0|people|facts|gerald-supervisor|Prof. Gerald Finch is Niamh's main PhD supervisor, a benthic ecologist who has worked on Connemara reefs since the 1990s.|phd||Who is in charge of supervising Niamh's doctorate?|
1|people|preferences|gerald-printed-drafts|Gerald reads drafts on paper with a red pen; send him a printed copy, not a Word file.|feedback|0.8|In what form should Niamh hand chapters to her main supervisor?|
*0-60|people|facts|gerald-bees|Gerald keeps four beehives behind his house in Moycullen and brings jars of honey to lab meetings.|hobby||Which supervisor produces honey?|
*0-80|people|facts|gerald-email-slow|Gerald can take two weeks to answer email; anything urgent is best raised in person.|communication||What's the quickest way to get an answer from Gerald?|
2|people|facts|amara-cosupervisor|Dr. Amara Okafor is Niamh's co-supervisor, a stable-isotope ecologist based at SAMS in Oban, Scotland.|phd||Where does the co-supervisor work?|
*10-90|people|facts|amara-cold-water|Amara swims in the sea year-round off Ganavan beach without a wetsuit.|hobby||What does Amara do for fun in Oban?|
*0-60|people|facts|amara-vegan|Amara is vegan; pick vegan options when she visits Galway.|food|0.7|What does Niamh need to remember about food when Amara comes over?|
3|people|facts|yusuf-postdoc|Yusuf Demir is the lab's postdoc and the resident statistics person; most mixed-model questions go to him.|stats||Who should Niamh ask about mixed-effects models?|
*10-100|people|facts|yusuf-izmir|Yusuf is from Izmir and cooks an enormous Turkish breakfast for the lab on the last Friday of each term.|food||Where is Yusuf originally from?|
*20-120|people|facts|yusuf-son|Yusuf's son Deniz is two and goes to the campus creche.|family||
*10-40|people|facts|yusuf-birthday|Yusuf's birthday is 3 February.|birthday||When is Yusuf's birthday?|
2|people|facts|tadhg-labmate|Tadhg Mulcahy is a fellow PhD student working on seagrass meadows in Kilkieran Bay.|lab||
*0-90|people|facts|tadhg-fiddle|Tadhg plays trad fiddle and has a session in Tigh Neachtain on Thursday nights.|music||Where can you hear Tadhg play music?|
*30-100|people|facts|tadhg-birthday|Tadhg's birthday is 12 April; he is from Dingle.|birthday||
4|people|facts|beatrix-msc|Beatrix Hale is the MSc student Niamh co-supervises; her project is gonad index variation across sites.|students|0.7|Which student is Niamh co-supervising, and on what?|
*0-70|people|preferences|beatrix-margin-comments|Beatrix prefers comments in the margin of a PDF rather than tracked changes, which she finds overwhelming.|feedback||How should Niamh mark up the MSc student's drafts?|
*10-90|people|facts|beatrix-lactose|Beatrix is lactose intolerant; oat milk in the lab fridge is hers.|food||Whose is the oat milk in the lab fridge?|
*20-100|people|facts|beatrix-bristol|Beatrix is from Bristol and did her undergrad at Plymouth.|background||
3|people|facts|colm-dive-officer|Colm Fahy is the station's diving officer and technician; every dive plan goes through him.|diving|0.8|Who has to approve a dive before it happens?|
24|people|facts|colm-birthday|Colm's birthday is 29 January; he likes a bottle of Connemara peated whiskey.|birthday|0.5|What would be a good birthday present for the diving officer?|k:colm-present
*0-60|people|facts|colm-irish|Colm is a native Irish speaker from Ros Muc and prefers to be addressed in Irish on the radio.|language||
5|people|facts|declan-skipper|Declan Joyce skippers the station RIB, the Muirin, out of Carna pier.|boat||Who drives the boat for fieldwork?|
*0-70|people|preferences|declan-phone-calls|Declan doesn't use email much; he prefers a phone call the evening before to confirm a trip.|communication||How does the skipper like to confirm a boat day?|
*20-120|people|facts|declan-collie|Declan's collie Bran rides in the boat and hates the outboard's noise.|pets||What is the skipper's dog called?|
4|people|facts|sinead-lab-manager|Sinead Ni Bhriain is the lab manager in Galway; she handles freezers, consumables and chemical safety.|lab||
*0-60|people|facts|paul-head-of-school|Dr. Paul Hennessy is head of the School of Natural Sciences and signs off on travel over 1,000 EUR.|admin||Who approves expensive trips?|
1|football|facts|roisin-assistant|Roisin Keane is Niamh's assistant coach for the U10 girls; she is a Garda and sometimes misses Saturdays on shift.|coaching||Who helps Niamh coach the team?|
*0-50|football|facts|padraig-secretary|Padraig Walsh is the Salthill Rovers club secretary and children's officer.|club||Who is the club's child-safeguarding contact?|
2|football|facts|fiona-team-manager|Fiona Gallagher, Saoirse's mum, runs the parents' WhatsApp group and the kit bag rota.|parents||Which parent organises the group chat?|
*0-40|football|facts|maeve-inhaler|Maeve has asthma; her blue inhaler is in the front pocket of the coaches' bag.|health|0.9|Which player has a medical need, and where is the medicine kept?|
*0-60|football|facts|ella-goalkeeper-gloves|Ella has her own goalkeeper gloves and loves diving saves, but still takes turns outfield.|players||
*0-60|football|facts|zara-new-player|Zara joined the team in January after moving from Limerick; she is shy but fast.|players||Who joined the squad in January, and from where?|
*10-90|football|facts|grace-twin-chloe|Grace and Chloe are twins; put them on different sides in training games or they argue.|players||What should Niamh keep in mind when picking sides in drills?|
*10-90|football|facts|aisling-left-foot|Aisling is the only left-footer and takes the corners from the right.|players||
*20-100|football|facts|nora-glasses|Nora wears sports goggles; she needs a spare pair in the bag since the first ones broke in February.|players||
*20-120|football|facts|orla-grandad-ref|Orla's grandad Michael used to referee in the League of Ireland and helps at Saturday games.|parents||Whose relative has refereeing experience?|
0|family|facts|eoin-partner|Eoin, Niamh's partner, teaches chemistry and biology at Colaiste Iognaid in Galway.|family||What does Niamh's partner teach?|
*0-80|family|facts|eoin-birthday|Eoin's birthday is 6 August; he collects vinyl jazz records.|birthday||What does Eoin collect?|
*0-60|family|facts|aoife-sister|Niamh's sister Aoife works in biotech in Boston and visits at Christmas.|family||
*0-90|family|facts|nana-bridie|Nana Bridie lives in Clifden, turns 90 in May, and still drives to Mass every Sunday.|family|0.7|How old will Niamh's grandmother be this year?|f:self:nana-bridie:age:2
*0-60|family|facts|parents-westport|Niamh's parents Maura and Liam live in Westport; Liam is recently retired from the county council.|family||
*0-60|home|facts|rua-greyhound|Rua is Niamh and Eoin's rescue greyhound, adopted from Galway Greyhound Rescue in 2024.|pets||Where did the dog come from?|
"""

SELF = r"""
0|self|preferences|no-email-before-writing|Niamh doesn't read email until her writing block is finished; urgent things should come by text.|writing|0.7|How should people reach Niamh if it's urgent in the morning?|
2|self|preferences|summaries-short|Niamh wants supervisor meeting notes as a short list of decisions and next steps, in the thesis Notion page.|notes||Where and how should supervision notes be recorded?|
*0-60|self|preferences|no-fieldwork-sundays|Niamh refuses to schedule fieldwork on Sundays; that is family day in Westport or Clifden.|schedule||Which day is off-limits for boat trips?|
*10-90|self|preferences|dry-suit|Niamh dives in a dry suit from November to May and a 7 mm wetsuit in summer.|diving||What does Niamh wear underwater in spring?
*0-80|self|preferences|r-tidyverse|Niamh writes analysis code in tidyverse style and hates base R plotting.|code||Which R style does Niamh prefer for analysis code?|
*20-120|self|preferences|podcasts-driving|On the drive to Carna Niamh listens to The Infinite Monkey Cage or Irish-language radio to practise.|driving||What does Niamh put on in the car on the way to the station?
*0-90|self|preferences|no-spiders|Niamh is terrified of spiders and won't go into the station's boathouse loft.|fears||Which part of the station does Niamh avoid?|
*10-90|self|preferences|window-desk|Niamh likes the window desk in the postgrad office on the second floor of the Ryan Institute.|office||
*0-100|self|beliefs|barrens-stable-states|Niamh believes urchin barrens in Connemara are an alternative stable state that won't recover without predator recovery.|science|0.6|What does Niamh think about whether barrens bounce back on their own?|
*20-140|self|beliefs|open-data|Niamh believes all thesis data should be published openly on Zenodo at submission.|science||What is Niamh's stance on sharing her datasets?|
*10-120|self|beliefs|kids-fun-first|Niamh believes under-10s should be coached for fun and touches on the ball, not results.|coaching||What's Niamh's coaching philosophy for young kids?|
*30-160|self|beliefs|p-values|Niamh would rather report effect sizes with intervals than lean on p-values.|stats||How does Niamh like statistical results presented?
*0-50|health|facts|ear-problems|Niamh had a perforated eardrum in 2023 and uses ear drops after every dive.|health|0.7|What does Niamh do for her ears after diving?|
*10-80|health|facts|dive-medical|Niamh's occupational dive medical is with Dr. Cathal Moran in Oranmore.|health||Who does Niamh's diving medical?|
*10-100|home|facts|house-salthill|Niamh and Eoin rent a terraced house on Dr Mannix Road in Salthill.|home||
*20-120|self|facts|irish-level|Niamh did her Leaving Cert through English but is taking Irish classes at the Gaeltacht centre in Carna.|language||
"""

DECISIONS = r"""
5|research|decisions|negbin-models|Urchin counts are modelled with a negative binomial distribution because the Poisson fits were badly overdispersed (dispersion about 3.4).|stats|0.9|Why aren't Niamh's count models using a Poisson distribution?|
7|research|decisions|belt-transects|Surveys use 30 m belt transects, 2 m wide, at 6 m and 12 m depth at each site.|methods|0.8|What is the layout of the underwater surveys?|
9|research|decisions|drop-mweenish|Mweenish Bay was dropped as a site because the only access is a private slipway the owner closed.|sites||Why is one of the original study sites no longer surveyed?|
12|research|decisions|metashape-photogrammetry|Kelp canopy structure is measured by photogrammetry in Agisoft Metashape from GoPro video.|methods||How does Niamh measure the kelp canopy structure?|
15|research|decisions|zotero-bibtex|References live in Zotero with Better BibTeX, one shared group library with Gerald.|writing||Which reference manager does Niamh use?|
18|research|decisions|github-repo|Raw data and analysis code live in the private GitHub repo urchin-barrens, with a nightly copy to university OneDrive.|data|0.7|Where is the raw dive data backed up?|
22|research|decisions|isotopes-gonad-kelp|Stable isotopes (carbon-13 and nitrogen-15) are measured on urchin gonads and kelp fronds to work out diet.|isotopes||What tissues are sent for isotope analysis?|
26|research|decisions|caging-experiment|The grazing experiment uses four treatments: full cage, partial cage, open plot and urchin-removal plot, with five replicates each.|experiment||How is the grazing experiment designed?|
*20-60|research|decisions|renv-targets|Every analysis uses renv for package versions and a targets pipeline so chapters can be rebuilt from raw data.|code||How does Niamh make her analyses reproducible?|
30|research|decisions|ch3-removal-site|The urchin-removal plots go at Ard Bay because it has the densest barren and sheltered access.|experiment||Why did the removal experiment go to that particular bay?|
33|research|decisions|no-ctd-purchase|Rather than buy a CTD, Niamh borrows the Marine Institute's HOBO temperature loggers.|equipment||How is water temperature being recorded at the sites?|
40|research|decisions|thesis-by-papers|The thesis will be a thesis-by-publication with four data chapters written as papers.|thesis||What format will the finished thesis take?|
*40-100|research|decisions|size-classes-10mm|Urchin test diameters are binned into 10 mm size classes for the size-frequency plots.|methods||How are urchins grouped by size for the plots?
*60-140|research|decisions|zenodo-doi|Each paper's data will get its own Zenodo DOI at acceptance.|data||
0|football|decisions|equal-minutes|Every girl plays equal minutes regardless of ability; Niamh keeps a minutes sheet on the clipboard.|fairness|0.8|How is playing time shared out on match days?|
3|football|decisions|rotating-keeper|The goalkeeper changes at half-time so everyone gets a turn in goal.|positions||Who plays in goal?|
6|football|decisions|indoor-winter|Training is indoors at the Dangan sports hall during January and February.|training|||
*10-60|football|decisions|effort-stars|Instead of a player-of-the-match award, each girl can earn effort stars on her sticker card.|motivation||How does Niamh reward the girls after games?|
45|football|decisions|end-of-season-party|The end-of-season party will be at Leisureland, with pizza and a swim, on 27 June.|party||Where is the team's season-end celebration?|
*10-80|football|decisions|no-heading|No heading drills at all for the under-10s, following the FAI guidance.|safety||Do the kids practise headers?|
"""

PROCEDURES = r"""
4|research|procedures|dive-plan|Before a dive: send the dive plan to Colm at least 48 hours ahead, do a buddy check on the boat, stay shallower than 18 m, and log the dive in the station book within 24 hours.|diving|0.9|What has to happen before and after Niamh goes underwater for fieldwork?|
6|research|procedures|book-boat|To book the boat: email the site list and tide times to the station office a week ahead, then ring Declan the evening before; trips are cancelled if the forecast is above force 4.|boat|0.8|How does Niamh arrange a day on the RIB?|
10|research|procedures|gonad-index|Gonad index: drain each urchin for 10 minutes, weigh it whole, dissect and weigh the wet gonads; GI is gonad weight divided by total weight times 100.|lab|0.8|How is the reproductive condition of an urchin measured in the lab?|
11|research|procedures|sample-labels|Every sample bag is labelled site-date-transect-number in pencil and entered in the freezer spreadsheet the same day.|samples||How should sample bags be labelled?|
19|research|procedures|isotope-prep|Isotope prep: freeze-dry for 48 hours, grind with a mortar, weigh 1 mg into tin capsules and record the tray map before shipping.|isotopes|0.7|How are samples prepared before being sent for isotope analysis?|
*5-50|research|procedures|expense-claims|Expense claims go through the university finance portal within 30 days, with receipts attached and Gerald as approver.|admin||How does Niamh get reimbursed for fieldwork costs?|
*5-40|research|procedures|station-van|The station van is booked on the shared Carna booking sheet; keys are in the key safe, code from the office.|travel||How do I get use of the station's vehicle?|
14|research|procedures|rebuild-analysis|To rebuild the analysis: open the project, run renv::restore(), then targets::tar_make(); figures land in output/figs.|code||How do I regenerate all the figures from scratch?|
*10-60|research|procedures|chapter-to-gerald|Chapter drafts go to Gerald as a printed copy by Monday for discussion at the weekly supervision meeting.|thesis||What's the deadline for giving Gerald a chapter before the weekly meeting?|
20|research|procedures|npws-permit|Collecting urchins in the SAC needs an NPWS licence, renewed every March through the online licensing form.|permits|0.8|What paperwork is needed to collect animals from the protected area?|
*20-100|research|procedures|hobo-download|To download a HOBO logger: dry it, connect the optic shuttle, read it out in HOBOware, then redeploy with a fresh launch time.|equipment||How are the temperature loggers read out?|
*40-120|research|procedures|caging-maintenance|Cage maintenance every two weeks: scrub fouling off the mesh, replace broken cable ties, and photograph each plot from the marker.|experiment||What upkeep do the experimental cages need?|
2|football|procedures|match-day|Match day: arrive 40 minutes early, put up the goals and nets, check a referee is coming, fill in the team sheet on the FAI Comet app, and have half-time snacks ready.|matches|0.8|What does Niamh need to do when the team has a game?|
8|football|procedures|injury-report|If a child is hurt: ice and first aid, tell the parent straight away, and email an incident report to Padraig within 24 hours.|safety|0.9|What's the process when one of the girls gets injured?|
9|football|procedures|weather-call|Bad weather: decide by 8:00 on Saturday whether the game is on, and post it in the parents' WhatsApp group.|weather||When must Niamh decide whether a wet-weather game goes ahead?|
*5-40|football|procedures|kit-rota|The kit bag goes home with a different family each week for washing; the rota is pinned in the WhatsApp group.|kit||How does the jersey washing get done?|
*5-60|football|procedures|training-plan|Session structure: 10 minutes of rondos to warm up, 20 minutes of technique, 25 minutes of small-sided games, and a water break halfway.|training||How is a typical practice broken up?|
*10-80|football|procedures|garda-vetting|Garda vetting is renewed every three years through Padraig using the club's e-vetting form.|safety||How does a coach renew their background check?|
*0-40|home|procedures|rua-feeding|Rua gets his kibble soaked in warm water, twice a day, with a fish oil capsule in the evening meal.|pets||How is the greyhound fed?|
*20-100|home|procedures|bins|Brown and green bins go out Monday nights; the black bin every second Monday.|home||
"""

EVENTS = r"""
17|research|events|january-storm|The 22 January storm tore two of the marker buoys off Finish Island and stripped much of the kelp there.|storm|0.7|What damage did the big gale in January do to the field sites?|~Colm reported the Finish Island marker buoys
65|research|events|first-dive-2026|The first dive of the 2026 season was on 11 March at Ard Bay; water was 8.5 degrees.|diving|||
73|research|events|progress-review-passed|Niamh passed her annual graduate research committee review on 19 March with no revisions.|phd|0.7||
93|research|events|shiptime-grant|The Marine Institute awarded Niamh three days of ship time on the RV Tom Crean for October.|funding|||
102|research|events|imss-talk|Niamh presented chapter 2 at the Irish Marine Science Symposium in Cork on 17 April.|conference|||
144|research|events|ch2-submitted|The chapter 2 paper was submitted to the journal on 29 May.|papers|||
55|family|events|engaged|Niamh and Eoin got engaged on 1 March on a hike on Inis Mor.|engagement|0.9||
109|research|events|rib-engine-failure|The Muirin's outboard failed off Cashel on 24 April; Declan got a tow back from a lobster boat.|boat|||
"""

PAIRS = r"""
8|research|decisions|quadrat-025|Urchins are counted in 0.25 m2 quadrats along each transect.|*70-95|quadrat-1m|Quadrats are 1 m2 now; the small frames missed too many urchins hiding under boulders.|methods|What size are the counting frames on the transects?
3|research|decisions|thesis-in-word|The thesis is being written in Word, using Gerald's template.|*100-130|thesis-in-quarto|Niamh moved the thesis into Quarto so the figures rebuild straight from the R pipeline.|writing|What is Niamh writing the thesis in?
13|research|decisions|ch2-to-meps|Chapter 2 will be submitted to Marine Ecology Progress Series.|*110-140|ch2-to-ecss|Chapter 2 is going to Estuarine, Coastal and Shelf Science, because MEPS's length limit would cut the isotope section.|papers|
0|football|facts|training-tue-thu|Training is on Tuesdays and Thursdays at 18:00.|59|training-mon-wed|Training moved to Mondays and Wednesdays at 17:30 when the outdoor season started.|training|When are the team's practice sessions?
1|research|facts|supervision-thursday|Weekly supervision with Gerald is on Thursdays at 11:00 in his office.|84|supervision-friday|Supervision with Gerald is now Fridays at 10:00, since he teaches a Thursday module this semester.|meetings|When is the weekly meeting with the main supervisor?
6|people|preferences|amara-monday-teams|Amara likes a Teams call every Monday at 9:00.|*60-83|amara-monthly-call|Amara prefers a written email summary each week and a call only once a month.|meetings|How often does Niamh talk to Amara now?
2|self|preferences|builders-tea|Niamh drinks strong builder's tea, milk and no sugar.|*50-80|rooibos|Niamh cut out caffeine and drinks rooibos now.|drinks|What should I make Niamh to drink?
*10-30|football|decisions|coaches-pick-captain|The coaches pick the captain each week.|128|girls-vote-captain|The girls vote for the captain each week by secret ballot in a bucket.|captain|
5|football|decisions|formation-231|The team plays a 2-3-1 formation in 7-a-side.|*80-110|formation-321|The team switched to 3-2-1 after conceding too many goals on the break.|tactics|What shape does the team line up in?
10|research|facts|dive-buddy-tadhg|Tadhg is Niamh's regular dive buddy.|107|dive-buddy-beatrix|Beatrix got her dive ticket and is Niamh's regular buddy now, since Tadhg left for fieldwork in Bergen.|diving|Who does Niamh usually dive with now?
*5-30|research|decisions|models-glmmtmb|The density models are fitted in glmmTMB.|*90-130|models-brms|Yusuf talked Niamh into refitting the density models in brms so she can report credible intervals.|stats|Which R package are the density models fitted with?
*40-60|family|events|nana-party-16-may|Nana Bridie's 90th birthday party is planned for 16 May in the Station House Hotel, Clifden.|*70-100|nana-party-23-may|Nana's 90th party was pushed back a week, to 23 May, so Aoife can fly in from Boston.|party|
6|research|facts|six-sites|Niamh surveys six sites around Carna.|80|five-sites|Niamh is down to five sites since Finish Island was abandoned after the storm.|sites|How many locations are in the survey now?
3|research|facts|lab-meeting-wednesday|Lab meeting is Wednesdays at 14:00.|98|lab-meeting-tuesday|Lab meeting moved to Tuesdays at 13:00 with sandwiches.|meetings|When does the research group meet each week?
*5-30|football|preferences|half-time-oranges|Half-time snack is orange slices.|*40-70|half-time-bananas|Half-time snack is bananas now, since Zara reacts to citrus.|snacks|What fruit should be brought for half-time?
*10-40|football|facts|saoirse-striker|Saoirse plays up front and scores most of the goals.|*90-120|saoirse-centre-back|Saoirse asked to play centre-back and loves defending now.|positions|Where does Saoirse play on the pitch?
4|self|preferences|parkrun-saturdays|Niamh does the Knocknacarra parkrun most Saturdays.|*30-60|sunday-swim|Niamh swims at the Blackrock diving tower on Sunday mornings instead of parkrun, since matches take up Saturdays.|fitness|What does Niamh do for exercise at the weekend now?
*5-30|people|facts|yusuf-clinic-friday|Yusuf runs a stats drop-in on Fridays at 14:00.|*60-100|yusuf-clinic-tuesday|Yusuf's stats drop-in is on Tuesday mornings at 10:00 now.|stats|When can Niamh catch Yusuf's stats help session?
*5-40|research|facts|freezer-b|Urchin samples are stored in freezer B, shelf 3.|50|freezer-d|All samples moved to the new minus-80 freezer D after freezer B failed in February.|samples|
30|research|decisions|imss-poster|Niamh will bring a poster to the Irish Marine Science Symposium.|60|imss-talk-upgrade|The symposium committee upgraded Niamh's abstract from a poster to a 15-minute talk.|conference|
*10-40|research|decisions|isotopes-at-sams|Isotope samples are run at SAMS in Oban, in Amara's lab.|*100-130|isotopes-uc-davis|Isotope samples now go to the UC Davis facility because the SAMS mass spectrometer is down until autumn.|isotopes|Which lab is running the isotope samples?
6|football|decisions|indoor-dangan-venue|Winter sessions are in Dangan sports hall.|60|south-park-grass|Training is back on the grass pitch at South Park.|venue|Where does the team practise at the moment?
3|research|facts|sinead-orders|Sinead places all consumables orders for the lab.|117|karen-orders|Lab orders now go through Karen, the new lab manager, while Sinead is on maternity leave.|orders|Who do I ask to order lab supplies?
*5-40|family|preferences|eoin-eats-everything|Eoin eats everything, especially steak.|95|eoin-vegetarian|Eoin went vegetarian for Lent and has kept it up.|food|What does Eoin eat these days?
*5-40|research|facts|skipper-declan|Declan takes all the station boat trips.|*150-165|skipper-mairtin|Mairtin Conneely is skippering the Muirin while Declan recovers from his hip replacement.|boat|
*5-40|self|preferences|writing-afternoons|Niamh writes in the afternoons after lab work.|*60-100|writing-mornings|Niamh writes from 8 to 11 every morning and does fieldwork admin and coaching after lunch.|writing|When does Niamh do her writing?
*5-30|people|preferences|gerald-no-slack|Gerald won't use Teams chat; only email or in person.|*100-140|gerald-teams-chat|Gerald started using Teams chat for quick questions after the school made it standard.|communication|Can Niamh message Gerald on chat now?
*10-30|football|facts|squad-twelve|The squad has twelve girls.|100|squad-fourteen|Two more girls joined after Easter, so the squad is fourteen.|squad|How many players are on the team now?
*5-40|home|preferences|rua-morning-walk|Eoin walks Rua in the mornings before school.|*120-140|rua-walk-niamh|Niamh does Rua's morning walk on the Barna beach now, since Eoin leaves earlier for the new commute.|pets|Who takes the greyhound out in the mornings?
*10-40|research|decisions|gopro-hero11|Video transects are filmed on the GoPro Hero 11.|*45-80|gopro-hero12|The station bought two GoPro Hero 12s with red filters, which replaced the Hero 11 for transects.|camera|Which camera is used for the video transects?
"""

FACTS = r"""
0|self|niamh|area|Salthill|
120|self|niamh|area|Barna|
0|self|niamh|car|2011 Volvo V70|
57|self|niamh|car|2019 Toyota Yaris hybrid|
*|self|niamh|phd-year|3|
*|self|niamh|student-id|21254873|What is Niamh's student number?
*|self|niamh|orcid|0000-0002-7781-4415|
0|self|niamh|stipend|25000 EUR|
40|self|niamh|stipend|28000 EUR|How much is Niamh's annual stipend now?
*|self|niamh|funder|Irish Research Council|Who funds Niamh's PhD?
*|self|niamh|submission-deadline|30 September 2027|When does the thesis have to be handed in?
0|self|niamh|dive-grade|CMAS 2-star|
85|self|niamh|dive-grade|CMAS 3-star|What diving qualification does Niamh hold?
*|self|niamh|dive-medical-expiry|14 November 2026|
0|self|niamh|phone|Pixel 8|
89|self|niamh|phone|Pixel 9|Which phone does Niamh have now?
*|self|niamh|birthday|8 October|
*|self|niamh|shoe-size|EU 39|
*|self|niamh|blood-type|A negative|
*|self|eoin|school|Colaiste Iognaid|
*|self|aoife|city|Boston|
0|self|nana-bridie|age|89|
140|self|nana-bridie|age|90|
*|research|station|name|Carna Research Station|
*|research|station|address|Carna, Co. Galway, H91 X2T8|
*|research|muirin|type|6.5 m RIB with a 115 hp Yamaha outboard|What kind of boat is the Muirin?
*|research|muirin|max-people|6|
0|research|urchins|dissected|112|
40|research|urchins|dissected|348|
90|research|urchins|dissected|610|
150|research|urchins|dissected|874|How many urchins have been dissected so far?
0|research|thesis|word-count|31,400|
60|research|thesis|word-count|38,900|
120|research|thesis|word-count|47,200|
175|research|thesis|word-count|52,800|How long is the thesis draft at the moment?
*|research|r|version|4.4.2|
*|research|github|repo|urchin-barrens|
*|research|zotero|library|Finch Lab Kelp|
*|research|ard-bay|gps|53.3042 N, 9.8321 W|What are the coordinates of Ard Bay?
*|research|finish-island|gps|53.2761 N, 9.8598 W|
*|research|mace-head|gps|53.3266 N, 9.9030 W|
*|research|ard-bay|max-urchin-density|38 per m2|
*|research|freezer-d|temperature|-80 C|
*|research|grant|irc-number|GOIPG/2023/4471|What is the grant reference for Niamh's scholarship?
0|research|isotopes|samples-sent|0|
60|research|isotopes|samples-sent|96|
130|research|isotopes|samples-sent|212|How many isotope samples have been shipped so far?
*|research|ch2|manuscript-id|ECSS-D-26-00412|
0|football|team|league-position|5th|
60|football|team|league-position|4th|
110|football|team|league-position|3rd|
160|football|team|league-position|2nd|Where does the team stand in the league table?
*|football|team|name|Salthill Rovers U10 Girls|
*|football|team|league|Galway & District League U10 Girls Division 2|Which league does the team play in?
*|football|team|home-pitch|South Park, Salthill|
*|football|team|kit-sponsor|McCambridge's of Shop Street|Who sponsors the team's jerseys?
*|football|team|kit-colours|green and white hoops|
0|football|team|wins|3|
60|football|team|wins|5|
110|football|team|wins|8|
160|football|team|wins|11|How many matches has the team won this season?
*|football|club|fee|120 EUR per season|How much do families pay to join the club?
*|football|club|website|salthillrovers.ie|
*|football|team|whatsapp-group|Rovers U10 Girls Parents|
0|home|rua|weight|31 kg|
110|home|rua|weight|29.5 kg|How much does the greyhound weigh?
*|home|rua|vet|Moycullen Vets|Which vet does Rua go to?
*|home|rua|microchip|372140000582211|
0|home|house|landlord|Mrs. Kilbride|
120|home|house|landlord|Tom Geraghty|Who is Niamh's landlord now?
0|home|house|rent|1,550 EUR|
120|home|house|rent|1,700 EUR|What is the rent on the current house?
*|home|house|broadband|Eir fibre 500|
*|football|team|coach-count|2|
*|research|ard-bay|max-depth|14 m|
*|research|mace-head|max-depth|22 m|
*|research|cashel-bay|max-depth|11 m|How deep does the reference site go?
*|research|inishnee|max-depth|16 m|
*|research|kilkieran|max-depth|9 m|
*|research|cashel-bay|gps|53.4072 N, 9.8049 W|
*|research|inishnee|gps|53.3903 N, 9.9501 W|
*|research|kilkieran|gps|53.3188 N, 9.7290 W|
*|research|caging|plots|20|
0|research|thesis|chapters-drafted|1|
75|research|thesis|chapters-drafted|2|
150|research|thesis|chapters-drafted|3|How many thesis chapters are drafted?
0|research|hobo-loggers|deployed|4|
70|research|hobo-loggers|deployed|9|How many temperature loggers are out in the water?
*|research|muirin|registration|G-4471-RIB|
*|home|rua|age|6|
*|home|house|bin-company|City Bin|
"""

PEOPLE_FACTS = [
    # name, email handle, office, role-detail, phone-ext
    ("gerald", "gerald.finch", "Ryan Institute room 204", "professor", "3121"),
    ("amara", "aokafor", "SAMS, Dunbeg, Oban", "senior lecturer", None),
    ("yusuf", "ydemir", "Ryan Institute room 112", "postdoc", "3177"),
    ("tadhg", "t.mulcahy", "postgrad office 2nd floor", "phd student", None),
    ("beatrix", "b.hale", "postgrad office 2nd floor", "msc student", None),
    ("colm", "colm.fahy", "Carna station dive store", "diving officer", "Carna 4"),
    ("sinead", "s.nibhriain", "Ryan Institute lab 1.08", "lab manager", "3140"),
    ("paul", "p.hennessy", "Arts Science building 3rd floor", "head of school", "2290"),
]
PEOPLE_FACT_QS = {
    ("yusuf", "office"): "Which room is Yusuf's office?",
    ("colm", "phone-ext"): "What extension reaches the diving officer?",
    ("gerald", "email"): "What is Gerald's email username?",
}

KV = r"""
0|favorite-editor|Positron|Which IDE does Niamh use for R?
0|r-theme|Catppuccin Mocha|
1|wifi-station-ssid|CarnaStation-Guest|What's the wireless network name at the research station?
1|wifi-station-pass|kelpforest2019|
2|tide-app|Tides Near Me, station Cashel|Which app does Niamh check tides on?
2|weather-site|windy.com, Carna spot|
3|drysuit|Santi E.Lite, size M|
3|bcd|Scubapro Hydros Pro|What buoyancy jacket does Niamh dive with?
4|dive-computer|Shearwater Peregrine|
4|mask|Atomic Venom|
5|gopro-serial|C3501325011234|
5|slate-pencils|Staedtler 2B|
6|notion-page|Thesis HQ|
6|coffee-spot-galway|Cupan Tae, Quay Street|
7|lunch-spot|Ard Bia at Nimmos|
7|pub|Tigh Neachtain|Which pub does Niamh go to?
8|fav-sandwich|Sheridans cheese toastie|
8|chipper|McDonaghs|
9|bookshop|Charlie Byrne's|Which bookshop does Niamh like?
9|library-desk|Hardiman Library, 3rd floor silent room|
10|podcast|The Infinite Monkey Cage|
11|current-book|The Soul of an Octopus|What book is Niamh reading?
12|parking-permit|Campus permit P-2291|
12|leap-card|student Leap card ending 4471|
13|coaching-badge|FAI PDP1|What coaching badge does Niamh have?
13|whistle|Acme Thunderer 58.5|
14|cone-colours|yellow for attack, blue for defence|
14|bibs|10 orange, 10 green|
15|team-sheet-app|FAI Comet|
15|pitch-booking|South Park via Galway City Council sports office|
16|club-email|u10girls@salthillrovers.ie|What's the email for the under-10 girls team?
17|parents-meeting-room|Salthill Community Centre room B|
18|first-aid-kit|in the blue coaches' bag, restocked monthly|
18|ice-packs|instant ice packs, box of 20|
19|referee-contact|Galway referees' appointments: Frank Costello|
20|eoin-school-phone|091 525 443|
20|aoife-timezone|America/New_York|
21|nana-phone|095 21 334|
22|mam-phone|098 26 190|
22|emergency-contact|Eoin, 087 355 1192|Who is Niamh's emergency contact?
23|gp|Dr. Sarah Folan, Salthill Medical Centre|Who is Niamh's GP?
23|pharmacy|Hickey's Pharmacy, Salthill|
24|colm-present|Connemara peated single malt, 12 years|
25|rua-food|Burns Penlan Farm, 12 kg bag|What brand of dog food does Rua eat?
25|rua-insurance|Allianz pet, policy 55-118|
26|hairdresser|Peter Mark, Eyre Square|
27|gym|none|
28|running-shoes|Brooks Ghost 16|
29|swim-spot|Blackrock diving tower|
30|favorite-beach|Gurteen Bay, Roundstone|What's Niamh's favourite beach?
31|favorite-walk|Diamond Hill, Connemara National Park|
34|spotify|Niamh's writing playlist: Olafur Arnalds|
36|zotero-group-id|5521907|
38|freezer-spreadsheet|OneDrive/FinchLab/freezer_log.xlsx|Where is the freezer inventory kept?
40|target-file|_targets.R in repo root|
42|renv-lock|committed, R 4.4.2|
44|stats-book|Zuur et al., Mixed Effects Models and Extensions in Ecology with R|
46|ggplot-palette|viridis, option mako|Which colour palette does Niamh use for figures?
48|figure-font|Source Sans 3|
50|freezer-d-location|Ryan Institute basement, room B.04|
52|car-insurance|FBD, renewal 3 March|
54|car-tax|due end of March|
56|nct-date|failed 18 February, Volvo|
58|yaris-reg|191-G-4418|What's the registration of Niamh's current car?
60|engagement-ring|Claddagh ring from Hartmann's|Where was the engagement ring bought?
62|wedding-date-idea|summer 2027, Clifden|
64|training-pitch|South Park pitch 3|
66|conference-badge|IMSS 2026 presenter|
68|imss-hotel|Imperial Hotel, Cork|
70|imss-train|Irish Rail Galway to Cork via Limerick Junction|How did Niamh travel to the symposium?
72|shiptime-dates|6-8 October 2026|When is Niamh's ship time?
74|rv-tom-crean-contact|Marine Institute ship scheduler, Grainne|
76|ecss-author-portal|Editorial Manager, ECSS|
78|davis-sif-account|FINCH-GALWAY-0426|
80|davis-shipping|FedEx International Priority, dried samples|
82|brms-backend|cmdstanr|
84|quarto-template|galway-thesis-quarto on GitHub|
86|barna-address|7 Cois Cladaigh, Barna|What is Niamh's new address?
88|barna-broadband|Pure Telecom 1 Gb|
90|moving-van|Galway Man and Van, 320 EUR|
92|nana-party-venue|Station House Hotel, Clifden|
94|nana-present|framed aerial photo of Clifden|What are they giving Nana for her 90th?
96|leisureland-booking|27 June, 14:00, party room 2|
98|trophies|medals from Galway Trophies, 16 ordered|
100|karen-email|karen.obrien|
102|mairtin-phone|087 119 7740|
104|summer-school|none this year|
106|holiday|Crete, 20-30 August|Where are Niamh and Eoin going on holiday?
108|eoin-summer-job|Irish college in Spiddal, July|
110|reviewer-suggestions|Ling, Filbee-Dexter, Smale|
112|zenodo-community|finch-lab|
114|sunday-swim-time|8:30|
116|creche|campus creche, Yusuf's son|
118|urchin-collection-licence|NPWS licence C48/2026|What is the number of the urchin collection licence?
120|beach-walk|Silverstrand to Barna pier|
122|station-office-phone|095 32 201|
124|ard-bay-marker|yellow buoy with FINCH LAB tag|
126|davis-turnaround|about 6 weeks|
128|cage-mesh|12 mm galvanised, from Galway Marine Supplies|Where does the cage mesh come from?
130|blitz-venue|Eamonn Deacy Park|
132|medal-engraving|Salthill Rovers U10 2025/26|
134|reviewer-deadline|response due 14 July|When is the response to the reviewers due?
136|barna-bin-day|Monday|
138|aoife-flight|Aer Lingus EI134 from Boston, 21 May|
140|karen-phone|ext 3149|
142|mairtin-boat-radio|channel 16, call sign Muirin|
144|thesis-committee|Finch, Okafor, Dr. Laura Keane (internal)|Who is on Niamh's thesis committee?
146|ship-time-berth|Galway docks, berth 2|
148|quarto-render|quarto render thesis/ --to pdf|
150|dive-log-book|Carna station book no. 7|
"""

JOURNAL = r"""
0|9.2|Set up the assistant for Niamh: tracking thesis work, fieldwork, the U10s and home stuff.|
0|14|Niamh re-read chapter 1 comments from Gerald; most are about the framing of barrens as stable states.|
1|19|First indoor training of the year at Dangan; only eight girls came because of the cold.|
2|11|Niamh and Yusuf went through the overdispersion checks; DHARMa residuals looked awful for Poisson.|
3|16|Zara's dad messaged that she is nervous about her first session; Niamh paired her with Saoirse.|How did Niamh help the new girl settle in?
7|10|The minus-20 freezer alarm went off twice overnight; Sinead reset it but asked for a service call.|
9|15|Niamh drafted the NPWS licence renewal but saved it to submit in March.|
11|20|Niamh and Eoin went to the Druid Theatre to see a Synge play.|What did Niamh and Eoin see at the theatre in January?
14|9|Gerald approved the belt transect design after a long argument about depth strata.|
17|7|Storm day: the station is closed and the pier road flooded. Niamh worked from home.|
18|14|Colm reported the Finish Island marker buoys missing after the storm; two moorings need replacing.|
21|18|Indoor training: Grace and Chloe argued again during the scrimmage, so Niamh split them up.|
24|16|Colm's birthday: the station crew had cake in the dive store.|
25|10|Niamh submitted the abstract for the Irish Marine Science Symposium.|
28|11|Beatrix's first week of lab work; she dissected her first 20 urchins with Niamh supervising.|
31|15|Isotope pilot: 12 kelp samples freeze-dried and ground; Amara wants a look at the C:N ratios first.|
35|19|Maeve had a mild asthma attack at training; used the inhaler and sat out ten minutes. Her mum was told.|What health scare happened at a training session in February?
38|13|Yusuf's birthday cake in the tea room; Niamh brought baklava from the Turkish shop on Dominick Street.|
89|18|Niamh dropped her phone off the pier at Carna; Eoin ordered a replacement.|
40|10|The Volvo failed its NCT on brakes and a corroded subframe; Eoin thinks it isn't worth fixing.|Why did Niamh's old car fail its test?
45|12|Nora's goggles broke when she headed a loose ball by accident; Fiona ordered a spare pair.|
49|9|Freezer B failed over the weekend; temperature reached minus 4. About 40 urchin samples may be compromised.|What went wrong with sample storage in February?|p:freezer-d
50|15|Moved every sample box to the new minus-80 freezer D and updated the freezer log.|
52|17|Niamh renewed the NPWS collection licence online; reference number came through the same day.|
55|18|Eoin proposed at the top of Dun Aonghasa on Inis Mor. Niamh said yes.|
57|12|Bought a 2019 Toyota Yaris hybrid from a dealer in Oranmore; traded in the Volvo for 400 EUR.|How much did Niamh get for the old car?
62|19|First training on grass at South Park; the girls were thrilled to be outside.|
65|15|First dive of the season at Ard Bay: 8.5 degrees, visibility 6 m, three transects done.|
70|10|Niamh sent chapter 2 methods to Amara; she asked for a clearer description of the isotope mixing model.|
73|16|Annual review meeting: the committee was happy, and Gerald said the caging design is the strongest part.|
79|14|Dive at Finish Island confirmed the kelp is gone to bare rock and urchins; site abandoned.|What did the first dive back at Finish Island find?
84|17|Yusuf walked Niamh through brms priors for the density models over coffee.|
88|11|Niamh and Beatrix counted 412 urchins at Ard Bay on two transects; the densest count so far.|
93|16|Marine Institute email: three days of ship time on the RV Tom Crean approved for October.|
95|12|Beatrix passed her CMAS 2-star diver assessment in the Leisureland pool.|
100|20|Niamh practised the symposium talk for Eoin twice; it ran 16 minutes, needs trimming.|
102|13|Symposium talk done in Cork; a researcher from UCC asked to share the urchin size data.|Who showed interest in Niamh's data after her April talk?
105|9|Tadhg left for three months of seagrass fieldwork in Bergen.|Where did Tadhg go in April, and for how long?|p:dive-buddy-beatrix
109|15|The Muirin's engine cut out off Cashel; a lobster boat towed Declan and Niamh back. No dive done.|
112|10|Mechanic found a fuel pump fault on the Muirin's outboard; repair cost 1,150 EUR from the station budget.|How much did it cost to fix the boat engine?
116|11|Sinead's last day before maternity leave; the lab gave her a hamper.|
120|17|Moving day to Barna; Rua is confused but happy with the beach.|
124|10|Caging experiment installed at Ard Bay: 20 plots, took two full boat days.|
131|19|Training: the girls voted on captain for the first time; Ella won.|
138|15|Nana Bridie's 90th party in Clifden; Aoife flew in from Boston and Nana danced with Liam.|
141|11|Reviewed Beatrix's draft introduction; left margin comments on the PDF.|
144|16|Chapter 2 submitted to Estuarine, Coastal and Shelf Science; manuscript id came back the same evening.|
149|9|Declan's hip operation went well; Mairtin is covering boat trips for six weeks.|
152|14|Cage check at Ard Bay: two partial cages lost their roofs in a swell; replaced with spare mesh.|What maintenance problem turned up at the cage plots in early June?
157|18|Last league game at home; a 4-4 draw with Knocknacarra, Aisling scored from a corner.|
166|12|U10 blitz final in Eamonn Deacy Park: the girls won 2-1 against Maree/Oranmore. Niamh cried a little.|How did the team do in the end-of-season tournament final?
169|18|End-of-season party at Leisureland; 14 medals handed out, every girl got one.|
173|10|Reviewer comments came back on chapter 2: minor revisions, mainly about the isotope discrimination factors.|What was the verdict on the chapter 2 paper?
178|11|Niamh started the response-to-reviewers letter; Amara will check the isotope parts.|
"""

WEEKLY_FOCUS = [
    "responding to Gerald's chapter 1 comments",
    "overdispersion checks and the negative binomial models",
    "storm clean-up and the belt transect protocol",
    "the symposium abstract",
    "Beatrix's lab induction and the isotope pilot",
    "the caging experiment design and the Volvo's NCT",
    "isotope prep for the first batch of gonads",
    "freezer B recovery and relabelling samples",
    "buying a car and moving training onto grass",
    "the first dives of the season at Ard Bay",
    "the annual progress review",
    "the Finish Island check and the quadrat change",
    "the brms refit with Yusuf",
    "Easter week transects and the ship-time application",
    "symposium talk preparation and the trip to Cork",
    "the boat engine breakdown and Tadhg's departure",
    "the engine repair and moving the thesis into Quarto",
    "moving house to Barna and installing the cages",
    "brms models for chapter 3 and the captain vote",
    "Nana's party and chapter 2 polishing",
    "submitting the chapter 2 paper",
    "cage checks and Beatrix's introduction",
    "the last league games",
    "the U10 blitz final",
    "the end-of-season party and data cleaning",
    "the response to reviewers",
    "planning autumn ship time",
]
WEEKLY_FOCUS_QS = {
    1: "What was Niamh busy with during the week of 12 January?",
    9: "What was going on for Niamh the week of 9 March?",
}

SUPERVISION_TOPICS = [
    "went through chapter 1 comments", "discussed the survey design", "argued about site selection",
    "talked about the timeline to submission", "went over the latest density plots", "planned the caging experiment",
    "short one, Gerald was late", "discussed which journals to target", "talked about teaching hours",
    "looked at Beatrix's progress", "discussed ship-time plans", "reviewed the isotope budget",
]
LAB_MEETING = ["Tadhg presented seagrass cores", "Yusuf ran a session on mixed models", "journal club on urchin barrens",
               "Beatrix gave her project update", "Niamh presented her density results", "safety briefing from Colm",
               "guest talk from a Marine Institute scientist", "discussion of the lab's data management plan"]
OPPONENTS = ["Knocknacarra", "Maree/Oranmore", "Corrib Celtic", "Mervue United", "Salthill Devon", "Athenry",
             "Moycullen", "Bearna Na Forbacha", "West United", "Claregalway"]
GIRLS = ["Saoirse", "Ella", "Maeve", "Zara", "Grace", "Chloe", "Aisling", "Nora", "Orla", "Lily", "Ava", "Ciara"]
SITES = ["Ard Bay", "Mace Head", "Cashel Bay", "Inishnee", "Kilkieran", "Finish Island"]
PAPERS = [
    ("Ling et al. 2015", "global regime shift dynamics of catastrophic sea urchin overgrazing"),
    ("Filbee-Dexter and Scheibling 2014", "sea urchin barrens as alternative stable states"),
    ("Smale et al. 2013", "threats and knowledge gaps for kelp forests in the NE Atlantic"),
    ("Norderhaug et al. 2021", "kelp forest recovery after urchin decline in Norway"),
    ("Steneck et al. 2002", "kelp forest ecosystems: biodiversity, stability, resilience"),
    ("Brooks et al. 2017", "glmmTMB balances speed and flexibility"),
    ("Hartig 2022", "DHARMa residual diagnostics for hierarchical models"),
    ("Phillips et al. 2014", "best practices for isotope mixing models"),
    ("Stock et al. 2018", "MixSIAR Bayesian mixing models"),
    ("Wernberg et al. 2016", "climate-driven regime shift of a temperate marine ecosystem"),
    ("Burrows et al. 2014", "modelling kelp distribution in Ireland"),
    ("Ebeling et al. 1985", "urchin grazing after storms in California"),
    ("Lauzon-Guay and Scheibling 2007", "urchin grazing fronts"),
    ("Pederson and Johnson 2006", "predation on urchins by lobsters"),
    ("Barrientos et al. 2022", "urchin gonad index and food quality"),
    ("Kelly et al. 2011", "Paracentrotus lividus fishery history in Ireland"),
    ("Guidetti 2006", "marine reserves and urchin predators"),
    ("Bolker et al. 2009", "GLMMs in ecology and evolution"),
    ("McElreath 2020", "Statistical Rethinking second edition"),
    ("Vehtari et al. 2017", "LOO cross-validation for Bayesian models"),
]

PLACES = r"""
*|football|preferences|whistle-light|When Niamh has to referee a U10 game she blows the whistle as little as possible and lets play flow.|refereeing||How strict is Niamh when she has to officiate a kids' game?|
*|self|preferences|boat-day-lunch|On boat days Niamh brings a flask of soup and cheese sandwiches; she hates cold food on the water.|fieldwork||What food does Niamh pack for a day at sea?|
*|self|preferences|figures-first|Niamh drafts every paper figures-first and writes the text around the finished plots.|writing||How does Niamh start writing a new manuscript?|
*|football|preferences|roisin-warmups|Roisin likes to run the warm-ups and the goalkeeper work while Niamh takes the main session.|coaching||How do the two coaches split a session?|
*|people|preferences|colm-radio-checks|Colm insists on a radio check with the station every 30 minutes while a dive boat is out.|safety||How often does the boat have to call in during a dive trip?|
*|people|facts|mairtin-fisherman|Mairtin Conneely is a retired fisherman from Maoinis who knows every rock around Carna.|boat||
*|people|facts|karen-lab-manager|Karen O'Brien joined as the temporary lab manager in May, coming from the Marine Institute labs in Oranmore.|lab||
*|football|facts|lily-ava-cousins|Lily and Ava are cousins and always travel together to away games in Ava's mum's car.|players||
*|football|facts|ciara-new-easter|Ciara and Siofra joined the squad after Easter, both from the school team at Scoil Ide.|players||
*|self|preferences|no-voice-notes|Niamh hates voice notes on WhatsApp and asks parents to type messages.|communication||How do parents need to contact Niamh?|

*|research|facts|site-ard-bay|Ard Bay is the main study site: sheltered, the densest urchin barren, and reachable by van at low tide.|sites||
*|research|facts|site-mace-head|Mace Head is the most exposed site and often undivable in a westerly swell.|sites||Which survey site is hardest to dive in bad weather?
*|research|facts|site-cashel-bay|Cashel Bay still has intact kelp forest and serves as the reference site.|sites||Which site serves as the healthy comparison?
*|research|facts|site-inishnee|Inishnee is reached only by boat and has strong currents at mid-tide.|sites||
*|research|facts|site-kilkieran|Kilkieran has a mixed kelp and barren patchwork near Tadhg's seagrass beds.|sites||
*|research|facts|species-paracentrotus|The study urchin is Paracentrotus lividus, the purple sea urchin, which was heavily fished in Connemara in the 1970s.|species||Which urchin species does Niamh study?
*|research|facts|species-laminaria|The kelp at the sites is mostly Laminaria hyperborea with some Saccharina latissima.|species||
*|research|facts|predators|The main urchin predators around Carna are ballan wrasse and spiny lobster, both scarce now.|species||
*|research|facts|station-tea-room|The Carna station tea room has the only reliable mobile signal on site.|station||Where at the station can you get phone reception?
*|research|facts|station-decompression|The nearest recompression chamber is at University Hospital Galway, 80 minutes away.|diving|0.8|How far is the nearest place to treat the bends?
*|research|facts|ryan-institute|Niamh's office is in the Ryan Institute on the Galway campus.|office||
*|football|facts|club-history|Salthill Rovers was founded in 1971 and started its girls' section in 2015.|club||
*|football|facts|south-park|South Park has three pitches; U10s use pitch 3 next to the Claddagh basin.|pitch||
*|football|facts|dangan-hall|Dangan sports hall is booked Tuesdays 18:00-19:00 for winter training.|pitch||
*|football|facts|referee-shortage|The league is short of referees, so coaches sometimes referee U10 games themselves.|league||
*|self|facts|niamh-from-westport|Niamh grew up in Westport and studied zoology at UCC.|background||Where did Niamh do her undergraduate degree?
*|self|facts|niamh-masters|Niamh did her master's at Bangor University on mussel beds in the Menai Strait.|background||
*|home|facts|neighbour-mick|Mick next door in Barna has a spare key and feeds Rua if they're late.|neighbours||Who can let the dog out if Niamh is stuck late?
*|home|facts|house-barna|The Barna house has a garden shed that Niamh uses to rinse dive gear.|home||
*|self|facts|eoin-family-spiddal|Eoin's family lives in Spiddal; Sunday dinner there every few weeks.|family||
"""

SLOTS = {
    "site": SITES[:5],
    "labmate": ["Yusuf", "Tadhg", "Beatrix", "Sinead", "the lab", "Colm"],
    "place": ["the Ryan Institute cafe", "the Bialann", "the station tea room", "Ard Bia", "the Hub",
              "the canteen in the Arts building"],
    "chat": ["the weather", "the Six Nations", "a documentary about octopuses", "house prices in Galway",
             "summer plans", "the new coffee machine", "a podcast episode", "the GAA championship", "Eurovision",
             "conference gossip"],
    "ch": ["1", "2", "3", "4"],
    "model": ["density", "size-frequency", "gonad index", "canopy cover", "isotope mixing"],
    "rresult": ["residuals look fine", "convergence warnings again", "estimates stable", "needs more iterations",
                "plots updated", "one site is driving the effect"],
    "drill": ["rondos and passing gates", "dribbling through cones", "1v1s", "shooting practice",
              "a 4v4 tournament", "defending shape", "throw-ins and corners", "tag games and a scrimmage"],
    "k": ["9", "10", "11", "12", "13"],
    "reminder": ["the kit bag rota", "Rua's fish oil", "the car insurance", "ordering more tin capsules",
                 "ringing Nana on Sunday", "the Irish class", "renewing the library books",
                 "booking the van", "the parents' WhatsApp update", "charging the dive computer"],
    "eod": ["lab work done, samples logged", "writing went slowly", "good day of analysis", "mostly admin",
            "long day in Carna", "quiet day", "all samples in the freezer", "one section of chapter 3 drafted"],
    "evening": ["dinner with Eoin", "walked Rua on the prom", "Irish homework", "read for an hour",
                "video call with Aoife", "early night after the drive", "watched a film with Eoin"],
    "weekend": ["walk with Rua on Silverstrand", "visited Nana in Clifden", "Sunday dinner in Westport",
                "lazy morning and a swim", "cleaned the dive gear", "farmers market at St Nicholas church",
                "cooked a big pot of soup", "hike in the Maamturks"],
    "lookup": ["tide times for next week", "ferry times to Inis Mor", "the price of mesh for cages",
               "a dry-suit repair shop", "train times to Cork", "isotope shipping rules", "U10 drills with no laps"],
    "parent": ["Fiona", "Zara's dad", "Ella's mum", "Grace and Chloe's mum", "Orla's grandad", "Aisling's dad",
               "Nora's mum", "Padraig"],
    "parenttopic": ["a missed session", "a lift to the away game", "the kit bag", "a sore ankle",
                    "the photo consent form", "the fixture list", "a birthday party clashing with training",
                    "new boots", "the end-of-season party"],
    "notice": ["the fixture for Saturday", "the training time", "the kit rota", "a reminder about water bottles",
               "the meeting point for the away game", "a photo from training"],
    "readtopic": ["urchin barrens", "kelp recovery", "isotope mixing models", "Bayesian GLMMs", "predator release",
                  "marine heatwaves", "photogrammetry methods", "urchin fisheries"],
    "vis": ["3", "4", "5", "6", "8"],
    "temp": ["8.5", "9", "10", "11", "12.5", "13"],
}
WEEKDAY = [
    (0.8, 1, 1, 8.3, 9.3, ["Triaged Niamh's inbox: {n} emails, {m} need replies.", "Morning triage: {N} unread, nothing urgent.",
                            "Cleared the university email; flagged {m} for Niamh."]),
    (0.8, 1, 2, 8, 11, ["Wrote {N}0 words of chapter {ch}.", "Writing block: chapter {ch} discussion.",
                        "Niamh worked on the chapter {ch} methods.", "Edited chapter {ch} figures and captions."]),
    (0.8, 1, 3, 11, 17, ["Processed {N} urchins from {site} for gonad index.", "Freeze-dried a batch of {site} samples.",
                          "Ran the {model} models again; {rresult}.", "Entered {site} transect counts into the spreadsheet.",
                          "Ground and weighed isotope samples from {site}.", "Checked the {model} model diagnostics; {rresult}.",
                          "Sorted GoPro footage from {site}."]),
    (0.3, 1, 1, 12.5, 13.5, ["Lunch with {labmate} in {place}; talked about {chat}.", "Lunch with {labmate}; talked about {chat}.",
                             "Quick lunch at {place}."]),
    (0.45, 1, 1, 17, 20, ["Reminded Niamh about {reminder}.", "Set a reminder for {reminder}."]),
    (0.6, 1, 1, 17.5, 19, ["End of day: {eod}.", "Wrap-up: {eod}."]),
    (0.3, 1, 1, 10, 17, ["Niamh asked me to look up {lookup}.", "Looked up {lookup} for Niamh."]),
    (0.6, 1, 2, 19.5, 22, ["Replied to {parent} about {parenttopic}.", "Posted {notice} in the parents' WhatsApp.",
                            "Message from {parent}: {parenttopic}.", "Updated the minutes sheet for Saturday."]),
    (0.35, 1, 1, 13.5, 16, ["Read a paper on {readtopic}.", "Skimmed new papers on {readtopic}.",
                            "Added {n} references on {readtopic} to Zotero."]),
    (0.25, 1, 1, 20, 22.5, ["Evening: {evening}.", "{evening}."]),
    (0.25, 1, 1, 9, 16, ["Checked tide tables for {site}.", "Checked the forecast for a boat day at {site}."]),
]
WEEKEND = [
    (0.9, 1, 1, 10, 19, ["Quiet weekend day; {weekend}.", "Weekend: {weekend}.", "Sunday: {weekend}."]),
    (0.4, 1, 1, 17, 21, ["Reminded Niamh about {reminder}.", "Evening: {evening}."]),
]

UNANSWERABLE = [
    "What is Gerald's wife's name?",
    "Which dentist does Niamh go to?",
    "What is Colm's favourite football team?",
    "How many children does Declan have?",
    "What car does Yusuf drive?",
    "Which school did Beatrix go to as a teenager?",
    "What is Amara's home address in Oban?",
    "When is Sinead's baby due?",
    "What is Tadhg's shoe size?",
    "What is the name of Eoin's school principal?",
    "How do you calibrate the dissolved oxygen probe?",
    "Which sea anemone species did Niamh record at Mace Head?",
    "What did Niamh decide about using drones for kelp mapping?",
    "How much did the wedding venue deposit cost?",
    "What is Aoife's husband's name?",
    "Which player scored the winning goal against Corrib Celtic in February?",
    "What colour is the away kit?",
    "What is the password for the lab's Zotero account?",
    "What time does the Sunday Irish class start?",
    "Who is the external examiner for Niamh's viva?",
    "How much does a replacement dry-suit zip cost?",
    "What is Paul Hennessy's mobile number?",
    "Which hotel did Aoife stay in during her visit?",
    "What is the procedure for shipping live urchins abroad?",
    "How many grams of kelp does an urchin eat per day in Niamh's data?",
    "What is Rua's birthday?",
    "Which under-12 team does Roisin coach?",
    "What did Niamh think of the Norwegian kelp conference in 2025?",
    "What mark did Beatrix get for her MSc thesis?",
    "Which airline did Tadhg fly to Bergen with?",
]

EXTRA_QUESTIONS = [
    ("event", "Where did Eoin propose?", ["p:engaged", "~Eoin proposed at the top"]),
    ("event", "When did the dive season start this year, and how cold was it?", ["p:first-dive-2026", "~First dive of the season"]),
    ("event", "How did Niamh's yearly progress assessment go?", ["p:progress-review-passed", "~Annual review meeting"]),
    ("event", "What did Niamh get from the Marine Institute?", ["p:shiptime-grant", "~Marine Institute email"]),
    ("event", "Where did Niamh present in April?", ["p:imss-talk", "~Symposium talk done in Cork"]),
    ("event", "When did the first thesis paper go out for review?", ["p:ch2-submitted", "~Chapter 2 submitted to"]),
    ("event", "What happened to the boat in late April?", ["p:rib-engine-failure", "~engine cut out off Cashel"]),
    ("fact", "What car does Niamh drive?", ["f:self:niamh:car:2", "~Bought a 2019 Toyota"]),
    ("fact", "Which part of Galway does Niamh live in now?", ["f:self:niamh:area:2", "k:barna-address"]),
    ("updated", 'Where are the urchin samples stored?', ['p:freezer-d', '~Moved every sample box']),
    ("updated", "When is the celebration for Nana's ninetieth?", ['p:nana-party-23-may', "~Nana Bridie's 90th party in Clifden"]),
    ("updated", 'How is the team captain chosen?', ['p:girls-vote-captain', '~girls voted on captain']),
    ("updated", 'Who is driving the boat this month?', ['p:skipper-mairtin', '~Mairtin is covering']),
    ("updated", 'Which journal is getting the chapter 2 manuscript?', ['p:ch2-to-ecss', '~Chapter 2 submitted to']),
    ("updated", 'Is Niamh giving a poster or a talk at the symposium?', ['p:imss-talk-upgrade', 'p:imss-talk']),
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
    attrs = ["email", "office", "role", "phone-ext"]
    for row in PEOPLE_FACTS:
        name = row[0]
        for attr, val in zip(attrs, row[1:]):
            if val is None:
                continue
            label = "f:people:%s:%s:1" % (name, attr)
            d = b.rday(skew=1.8, weekday=True)
            b.add(label, d, "fact", domain="people", subject=name, attribute=attr, value=val)
            if (name, attr) in PEOPLE_FACT_QS:
                b.q("fact", PEOPLE_FACT_QS[(name, attr)], [label])
    b.kv_block(KV)
    b.journal_block(JOURNAL)

    for w, focus in enumerate(WEEKLY_FOCUS):
        d = w * 7
        if d >= NDAYS:
            break
        key = "week-plan-%s" % iso_date(d)
        label = "p:" + key
        b.add(label, d, "persona", hour=8.4, domain="self", facet="events", key=key,
              value="Plan for the week of %s: %s." % (fmt_date(d), focus))
        if w in WEEKLY_FOCUS_QS:
            b.q("event", WEEKLY_FOCUS_QS[w], [label])

    # reading notes
    for i, (who, what) in enumerate(PAPERS):
        d = b.rday(skew=1.2, weekday=True)
        slug = "reading-" + "-".join(w for w in who.lower().replace(".", "").split() if w.isalnum() and w not in ("et", "al", "and"))
        b.add(None, d, "persona", domain="research", facet="facts", key=slug[:60],
              value="Reading note: %s on %s; cited in chapter %d." % (who, what, rng.randint(1, 4)))

    # recurring: supervision, lab meeting, training, matches, sample batches
    season_break = set(range(91, 98))  # Easter break
    match_no = 0
    for d in range(NDAYS):
        wd = d % 7
        if wd == (3 if d < 84 else 4):
            key = "supervision-%s" % iso_date(d)
            b.add(None, d, "persona", hour=11 if d < 85 else 10, domain="research", facet="events", key=key,
                  value="Supervision with Gerald on %s: %s." % (fmt_date(d), rng.choice(SUPERVISION_TOPICS)))
        if (wd == 2 and d < 98 and d % 14 == 2) or (wd == 1 and d >= 98 and d % 14 == 1):
            key = "lab-meeting-%s" % iso_date(d)
            b.add(None, d, "persona", hour=14, domain="research", facet="events", key=key,
                  value="Lab meeting %s: %s." % (fmt_date(d), rng.choice(LAB_MEETING)))
        if wd == 5 and d not in season_break and 12 <= d <= 152:
            match_no += 1
            opp = rng.choice(OPPONENTS)
            gf, ga = rng.randint(0, 6), rng.randint(0, 5)
            res = "won" if gf > ga else ("lost" if gf < ga else "drew")
            key = "match-%s-%s" % (iso_date(d), opp.lower().replace("/", "-").replace(" ", "-"))
            b.add(None, d, "persona", hour=12.5, domain="football", facet="events", key=key,
                  value="U10s %s %d-%d against %s; %s and %s played well." % (
                      res, gf, ga, opp, rng.choice(GIRLS), rng.choice(GIRLS)))
            b.add(None, d, "journal", hour=8.2, content=rng.choice([
                "Sent the match-day reminder to the parents' WhatsApp.",
                "Match day: posted the meeting time in the parents' group.",
                "Checked the pitch is on and confirmed the referee."]))
        training_days = (1, 3) if d < 59 else (0, 2)
        if wd in training_days and d not in season_break and d <= 170:
            b.add(None, d, "journal", hour=18.6 if d < 59 else 18.1, content=b.fill(rng.choice([
                "Training: {drill}; {k} girls turned up.", "Training session: {drill}.",
                "Coached training tonight: {drill}; {k} there."]), SLOTS))

    # shirt numbers
    for i, g in enumerate(GIRLS):
        b.add("f:football:%s:shirt-number:1" % g.lower(), b.rday(skew=2.5), "fact", domain="football", subject=g.lower(), attribute="shirt-number",
              value=str(i + 2 if i else 1))
    b.q("fact", "What number does Orla wear?", ["f:football:orla:shirt-number:1"])
    # weekly football training plans and Beatrix meetings, monthly Amara calls
    for d in range(NDAYS):
        if d % 7 == 6 and d <= 168:
            b.add(None, d, "persona", hour=20.5, domain="football", facet="events",
                  key="training-plan-%s" % iso_date(d),
                  value="Training plan for the week after %s: %s, plus %s." % (
                      fmt_date(d), rng.choice(SLOTS["drill"]), rng.choice(SLOTS["drill"])))
        if d % 7 == 1:
            b.add(None, d, "persona", hour=15.5, domain="people", facet="events", key="beatrix-meeting-%s" % iso_date(d),
                  value="Weekly meeting with Beatrix on %s: %s." % (fmt_date(d), rng.choice([
                      "went over her lab numbers", "talked about her literature review", "planned her next dissection batch",
                      "looked at her first plots", "discussed her dive training", "talked about writing habits",
                      "checked her sample labels", "short one, she was in the lab"])))
        if day_date(d).day in (10, 11, 12, 13, 14, 15, 16) and d % 7 == 0:
            b.add(None, d, "persona", hour=9.2, domain="people", facet="events", key="amara-call-%s" % iso_date(d),
                  value="Call with Amara on %s: %s." % (fmt_date(d), rng.choice([
                      "isotope budget", "mixing model priors", "chapter 2 methods", "shipping samples",
                      "the symposium talk", "reviewer comments"])))
    n = 100
    days = sorted(b.rday(skew=1.0, weekday=True, lo=20) for _ in range(215))
    for d in days:
        n += 1
        site = rng.choice(SITES[:5] if d > 79 else SITES)
        kind = rng.choice(["gonad index", "isotope", "size-frequency", "gut contents"])
        key = "batch-cb-%d" % n
        b.add(None, d, "persona", domain="research", facet="events", key=key,
              value="Sample batch CB-%d: %d urchins from %s for %s, stored %s." % (
                  n, rng.randint(8, 30), site, kind, "freezer B" if d < 49 else "freezer D"))
    # dive days in season (journal)
    for d in range(65, NDAYS):
        if is_weekend(d) or rng.random() > 0.22:
            continue
        b.add(None, d, "journal", hour=rng.uniform(12, 15), content=b.fill(rng.choice([
            "Dive at {site}: visibility {vis} m, water {temp} degrees, {m} transects done.",
            "Boat day at {site}; {m} transects and {n} urchin bags collected.",
            "Dived {site} with the buddy team; {vis} m visibility."]), SLOTS))
    b.daily_journals(SLOTS, WEEKDAY, WEEKEND)
    b.unanswerable.extend(UNANSWERABLE)
    for qt, text, labels in EXTRA_QUESTIONS:
        b.q(qt, text, labels)
