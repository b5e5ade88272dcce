"""Holdout3 workload: an assistant agent working for Anneke Visser, a Dutch-born
chartered structural engineer (CPEng) who is a senior bridge engineer at
Ridgeway Tane Consulting in Hamilton, New Zealand.  She leads the design side
of the seismic retrofit and shared-path widening of the 1961 Monckton Street
Bridge over the Waikato River for the city council.  Outside work she is an
amateur astronomer (variable stars, club outreach nights) and plays tenor horn
in a brass band.  Southern-hemisphere seasons: January is high summer, June is
winter.  Written after the memory system had been tuned, by an author who had
not read its code, as a fresh held-out set to be run once.
Day 0 = Monday 5 Jan 2026.  Jan d -> day d-5, Feb d -> 26+d,
Mar d -> 54+d, Apr d -> 85+d, May d -> 115+d, Jun d -> 146+d, Jul d -> 176+d.
Public holidays (Waikato): 26 Jan (21), 6 Feb (32), 3 Apr (88), 6 Apr (91),
27 Apr (112, Anzac Day observed), 1 Jun (147).
"""
from gen import fmt_date, iso_date, is_weekend, NDAYS, day_date

HOLIDAYS = {21, 32, 88, 91, 112, 147}

# Proper names of this world; gen.py checks that none of them occurs in the
# other three workloads.
NAMES = ["Anneke", "Visser", "Ridgeway", "Monckton", "Bruce", "Halliday", "Sione", "Taufa",
         "Kirsty", "Jared", "Kwan", "Aroha", "Kereama", "Deborah", "Lusk", "Marcus", "Tipene",
         "Brannock", "Craig", "Dunstan", "Nikhil", "Maclennan", "Tess", "Moorhouse", "Matiu",
         "Rangi", "Priyanka", "Desai", "Owen", "Fairbairn", "Hayley", "Brunt", "Tomasi",
         "Rhys", "Pritchard", "Milo", "Ria", "Joost", "Femke", "Lionel", "Pike", "Gavin", "Stroud",
         "Ngaire", "Baxendale", "Marama", "Wihongi", "Vea", "Hollis", "Eluned", "Ashworth", "Waikato", "Hamilton", "Hillcrest", "Riverlea", "Utrecht",
         "Delft", "Morrinsville", "Dobsonian", "Carinae", "Te Pahu", "Hetty", "Dot", "Brymer"]

# --------------------------------------------------------------------------
# persona: day|domain|facet|key|value|themes|importance|question|also
# --------------------------------------------------------------------------
PEOPLE = r"""
0|people|facts|bruce-director|Bruce Halliday is the technical director for bridges at Ridgeway Tane and Anneke's manager; he designed half the motorway overbridges in the Waikato in the 1990s.|management||Who do I report to at the consultancy?|
1|people|preferences|bruce-sketch-first|Bruce wants a hand sketch of the load path on one A3 sheet before anyone opens a finite element model.|design|0.8|What does my boss expect to see before I start analysing something on the computer?|
*0-80|people|facts|bruce-fly-fishing|Bruce spends his weekends fly fishing for trout on the Tongariro and ties his own flies.|hobby||What does Bruce do on his days off?|
*30-140|people|facts|bruce-birthday|Bruce's birthday is 17 September.|birthday||
0|people|facts|sione-graduate|Sione Taufa started on 5 January as a graduate structural engineer; he did his BE (Hons) at the University of Auckland and grew up in Otahuhu.|team||Where did the new graduate study?|
2|people|relationships|sione-mentor|Anneke is Sione's mentor for his first year and his sign-off for the chartership competence log.|mentoring|0.6|Who is responsible for coaching the graduate?|
*10-80|people|preferences|sione-worked-examples|Sione learns best from a fully worked example he can follow line by line, rather than from a code clause on its own.|learning||What's the best way to explain a new calculation to Sione?|
*20-120|people|facts|sione-rugby|Sione plays prop for the University club's senior B rugby team on Saturdays.|sport||Which position does the graduate play on the field?|
1|people|facts|kirsty-bim|Kirsty Boyd is the senior BIM technician; she builds the Revit and Civil 3D model of the bridge and produces every drawing set.|drawings||Who puts the drawing sets together?|
*0-70|people|preferences|kirsty-markups|Kirsty wants drawing changes as Bluebeam markups with a cloud and a revision note, never as an email list.|drawings|0.7|How should I send drawing changes to Kirsty?|
*20-100|people|facts|kirsty-baby|Kirsty and her husband Dan are expecting their first baby in early June.|family||
2|people|facts|jared-intermediate|Jared Kwan is an intermediate engineer who designs the steel clip-on girders for the shared path.|team||
*0-90|people|facts|jared-climbing|Jared goes bouldering at the Extreme Edge gym most lunchtimes; his hands are always covered in chalk.|sport||Where does Jared disappear to at lunch?|
*10-60|people|facts|jared-birthday|Jared's birthday is 11 February; he only drinks oat flat whites.|birthday|0.5|What coffee should I get Jared for his birthday?|
3|people|facts|aroha-geotech|Aroha Kereama is the geotechnical engineer; she did the liquefaction assessment of the river bed and the pile checks.|geotech||Who looked at whether the riverbed soils could liquefy?|
*0-60|people|preferences|aroha-borelogs|Aroha won't give a pile capacity without the original 1959 borelogs in front of her; photocopies from the archive are fine.|geotech|0.7|What does Aroha need before she'll sign off a foundation number?|
*30-150|people|facts|aroha-waka-ama|Aroha paddles waka ama on Lake Karapiro three mornings a week.|sport||
4|people|facts|deborah-council|Deborah Lusk is the council's project manager for the Monckton Street Bridge and controls the budget and the communications to residents.|client||
*0-50|people|preferences|deborah-no-surprises|Deborah wants a phone call before any bad news goes in writing; she hates learning about problems from a report.|client|0.8|How does the council's project manager want to hear about problems?|
5|people|facts|craig-brannock|Craig Dunstan is Brannock Civil's project manager for the bridge; he ran the Karapiro dam spillway job before this one.|contractor||Who runs the job for the building contractor?|
*0-60|people|facts|nikhil-site-engineer|Nikhil Joshi is Brannock's site engineer; he raises most of the RFIs and does the surveys on site.|contractor||Who sends most of the contractor's questions?|
*10-90|people|facts|nikhil-cricket|Nikhil opens the batting for the Hamilton Marist seconds and talks about nothing else on Mondays.|sport||
6|people|facts|hugh-peer-reviewer|Prof. Hugh Maclennan of Tasman Peer Review is the independent peer reviewer for the seismic design; he retired from teaching at Canterbury in 2019.|review||Who is checking our seismic design from outside the firm?|
*0-80|people|preferences|hugh-mornings|Hugh only takes calls before 11:00; he spends the afternoons in his garden in Cambridge.|review||When is the best time to ring the peer reviewer?|
*0-60|people|facts|tess-traffic|Tess Moorhouse is Brannock's traffic management planner; she writes every traffic management plan for the bridge.|traffic||Who do I need for a lane closure plan?|p:lane-closure
*10-90|people|facts|matiu-cultural|Matiu Rangi is the cultural monitor appointed by the iwi; he attends any work in the riverbed and blesses the site before major stages.|iwi|0.8|Who has to be present when we work in the river itself?|p:river-works-notice
*20-120|people|facts|matiu-kapa-haka|Matiu tutors a kapa haka group at the local kura on Tuesday nights.|culture||
*0-60|people|facts|priyanka-qs|Priyanka Desai is the quantity surveyor who values variations and the monthly progress claims.|costs||Who prices the changes to the contract?|p:variation-process
*10-90|people|facts|priyanka-vegetarian|Priyanka is vegetarian and doesn't eat eggs; order the vegan platter when she's at a workshop.|food|0.7|What food rule is there for the quantity surveyor?|
*0-70|people|facts|owen-safety|Owen Fairbairn is Ridgeway Tane's health and safety manager; all site visits go through his induction.|safety||
*0-60|people|facts|hayley-planner|Hayley Brunt is the planner who handled the resource consent and the river works conditions.|consent||Who knows the consent conditions best?|
*30-120|people|relationships|jared-kirsty-flatmates|Jared and Kirsty were flatmates in Dunedin while studying and still have Sunday roast together.|friends||Which two people on the team lived together at university?|
0|family|facts|rhys-partner|Rhys Pritchard, Anneke's partner, is a large-animal vet at a dairy practice in Morrinsville; he grew up near Aberystwyth in Wales.|family||What does my partner do for a living?|
*20-120|family|facts|rhys-birthday|Rhys's birthday is 2 August; he collects old Welsh rugby programmes.|birthday||What does Rhys collect?|
*0-60|family|facts|rhys-coeliac|Rhys is coeliac; anything baked for him has to be gluten free.|health|0.7|What do I have to watch when baking for Rhys?|
1|family|facts|milo-son|Milo, Anneke and Rhys's son, is 11 and in Year 7 at Brymer Intermediate.|family||Which school is my boy at?|
*10-90|family|facts|milo-birthday|Milo turns 12 on 9 June and has asked for a proper pocketknife and a trip to the snow.|birthday|0.6|What does Milo want for his birthday?|
*0-60|family|facts|ria-mother|Anneke's mother Ria lives in Utrecht; they video call every Sunday at 20:00 New Zealand time, which is Sunday morning for Ria.|family||When do I usually talk to my mum?|
*10-80|family|facts|ria-knitting|Ria knits and loves merino yarn; a few skeins from a New Zealand mill make her very happy.|hobby||What would my mother like as a present from here?|
*0-60|family|facts|joost-brother|Anneke's younger brother Joost is a harbour pilot in Rotterdam; his fiancee is Femke, a primary teacher.|family||What does my brother do?|
*20-100|family|facts|rhys-parents|Rhys's parents Gareth and Eluned retired to Nelson and visit at Christmas.|family||Where do Rhys's parents live?|
*0-50|home|facts|hens|Anneke keeps three hens, Hetty, Maud and Dot, in a coop behind the vegetable garden.|pets||What are the hens called?|k:new-hens
*10-100|people|facts|lionel-mentor|Lionel Pike is a retired land surveyor in the astronomy club who got Anneke into variable star observing.|astronomy||Who introduced me to estimating star brightness?|
*10-100|people|facts|gavin-bandmaster|Gavin Stroud is the musical director of Riverlea Brass; he played euphonium in the Army band for twenty years.|band||Who conducts the band?|
*0-60|people|facts|ngaire-solo-horn|Ngaire Baxendale plays solo tenor horn next to Anneke and drives her to contests.|band||Who sits next to me in the horn section?|
*20-120|people|facts|club-president|Marama Wihongi is the president of the Waikato Skywatchers and runs the public outreach nights.|astronomy||Who organises the astronomy club's open nights?|
*30-115|people|facts|deborah-secondment|Deborah Lusk told Anneke she had applied for a secondment to the regional transport plan team.|client||
"""

SELF = r"""
0|self|preferences|no-meetings-before-930|Anneke keeps the first hour of the day, before 9:30, free of meetings for checking calculations.|schedule|0.8|When shouldn't anyone book me into meetings?|
1|self|preferences|minutes-actions-table|Anneke wants meeting notes as an actions table with owner and due date first, discussion underneath.|meetings||How do I like meeting notes laid out?|
*0-60|self|preferences|hates-teams-calls-unscheduled|Anneke hates unscheduled Teams calls; people should message first and ask for a time.|communication||What should people do before ringing me on Teams?|
*0-90|self|preferences|drop-coffee|Anneke drinks black filter coffee until lunch and rooibos tea in the afternoon.|drinks||What do I drink after lunch?|
*10-90|self|preferences|window-seat|On flights Anneke takes a window seat on the left side so she can look at the mountains.|travel||Where do I like to sit on a plane?|
*0-60|self|preferences|no-coriander|Anneke can't stand coriander; it tastes like soap to her.|food||Is there a herb I refuse to eat?|
*20-120|self|preferences|variable-stars-over-photos|Anneke prefers visual variable star estimates to astrophotography; she likes that the data is useful to professionals.|astronomy|0.6|Why do I do brightness estimates rather than take pictures of the sky?|
*10-100|self|preferences|red-torch|At the eyepiece Anneke uses only a dim red torch and asks others not to use phone screens.|astronomy||
*0-80|self|preferences|paper-charts|Anneke prints her comparison star charts on paper rather than using a tablet at the telescope.|astronomy||
*30-150|self|preferences|reminders-three-days|Anneke wants reminders three days before family birthdays in the Netherlands so an e-card goes out on time with the time difference.|reminders|0.7|How much warning do I want before a birthday back in Europe?|
*0-100|self|beliefs|retrofit-not-replace|Anneke believes a careful retrofit of a 1960s bridge beats replacement on cost and carbon nine times out of ten.|design|0.7|What's my view on strengthening old bridges versus building new ones?|
*10-120|self|beliefs|site-walk-before-design|Anneke believes no engineer should sign a drawing for a structure they haven't walked under.|design||What do I think every engineer should do before signing off drawings?|
*20-140|self|beliefs|simple-details|Anneke thinks the best seismic details are the ones a tired crew can build right at 4 pm on a Friday.|design||
*30-160|self|beliefs|outreach-matters|Anneke thinks letting kids look through a telescope matters more than any data the club collects.|astronomy||What do I think is the most important thing the club does?|
*0-60|health|facts|asthma-cold|Anneke has mild asthma that flares on cold nights; she keeps a blue inhaler in the observing case.|health||Where's my inhaler when I'm out stargazing?|
*10-90|health|facts|contact-lenses|Anneke wears daily contact lenses and carries glasses for the eyepiece; her optometrist is at Specsavers Chartwell.|health|0.6|Who does my eye tests?|
*0-100|home|facts|house-hillcrest|Anneke and Rhys own a 1950s weatherboard house in Hillcrest with a big back lawn that is dark enough for the telescope.|home||
*10-80|self|facts|background-delft|Anneke studied civil engineering at TU Delft and came to New Zealand in 2011 to work on the Christchurch earthquake rebuild.|background||What brought me to New Zealand?|
*20-120|self|facts|chartered-2016|Anneke became a Chartered Professional Engineer in 2016 and moved from Christchurch to Hamilton in 2017.|background||When did I get chartered?|
*0-100|self|facts|grew-up-utrecht|Anneke grew up in Utrecht and played horn in a school wind band before switching to tenor horn in New Zealand.|background||
"""

DECISIONS = r"""
7|projects|decisions|retrofit-not-replacement|The council chose retrofit over replacement for the Monckton Street Bridge because replacement was estimated at 58 M NZD against 14 M NZD and would close the river crossing for two years.|options|0.9|Why are we fixing the old bridge rather than building a new one?|
7|projects|decisions|importance-level-3|The bridge is designed to importance level 3 because it is a lifeline route to the hospital.|seismic|0.8|Why does the bridge get a higher seismic category?|
8|projects|decisions|linkage-bolts|Longitudinal linkage bolts are added across every pier to stop the spans unseating in an earthquake, instead of widening the seats.|seismic|0.8|How are we stopping the deck from falling off the supports in a big quake?|
9|projects|decisions|shared-path-clip-on|The shared path is a 3.5 m steel clip-on on the downstream side, hung off new cross-beams, because the existing cantilevers can't take more load.|path||How is the walking and cycling lane attached to the bridge?|
11|projects|decisions|keep-handrails-heritage|The original 1961 cast-iron handrail panels are kept and reinstalled on the upstream side because the heritage assessment rated them highly.|heritage|0.7|What's happening to the old railings?|
14|projects|decisions|night-works|Deck works happen at night with full closures, so the bridge stays open for the morning and evening peaks.|traffic|0.8|Why is so much of the work done after dark?|
14|projects|decisions|no-works-fish-spawning|No in-river works between 1 June and 30 November, to protect the whitebait migration; all riverbed work has to be finished by the end of May.|river||Until when are we allowed to work in the riverbed?|~no riverbed works after 31 May
15|projects|decisions|cathodic-protection|Impressed current cathodic protection is fitted to the splash zone of the piers instead of replacing the cover concrete.|durability||How is corrosion of the pier steel being dealt with?|
16|projects|decisions|barge-not-staging|Pier work is done from a moored barge rather than temporary staging in the river, to keep the flood channel clear.|river|0.7|Why do we work off a barge instead of scaffolding in the water?|
18|projects|decisions|abutment-ground-improvement|The north abutment gets stone columns for ground improvement after Aroha's liquefaction study; the south abutment sits on rock and needs nothing.|geotech||Which end of the bridge needs the ground strengthened?|~north abutment sands
21|projects|decisions|no-document-system|The council decided against paying for a separate document control system; drawings are issued from the Ridgeway Tane SharePoint transmittal site.|documents||
22|projects|decisions|drone-inspections|Underside inspections are done by drone with a tethered light rather than a bridge inspection unit, to avoid lane closures.|inspection||How do we look at the underside of the deck without closing lanes?|
23|projects|decisions|precast-crossbeams|The new cross-beams are precast in Brannock's yard at Te Rapa and lifted in, not cast on the bridge.|construction||Where are the new cross-beams being made?|
24|projects|decisions|lighting-dark-sky|The shared path uses warm 3000 K downward lights with no upward spill, at Anneke's suggestion, to protect the river's bats and the night sky.|lighting||What kind of lamps are going on the walkway?|
25|projects|decisions|contract-ncc3910|The works are let under an NZS 3910 measure-and-value contract with Ridgeway Tane as engineer to contract.|contract||What form of contract is the bridge job on?|
28|projects|decisions|traffic-bus-lane|During the day one lane each way stays open under temporary signals, with a signalised crossing for pedestrians.|traffic||How does the traffic run across the bridge during the day?|
29|projects|decisions|calc-check-independent|Every seismic calculation gets an independent check by an engineer who did not write it before it goes to Hugh.|quality|0.8|Can I send my own seismic calculation straight to the peer reviewer?|
32|projects|decisions|bats-survey|Brannock must do a bat survey before removing any of the old pier formwork voids, because long-tailed bats roost under the bridge.|ecology||Why do we need an ecologist before stripping the old voids?|
36|projects|decisions|monitoring-strain-gauges|Strain gauges go on two spans for a year after opening so the council can see how the retrofit performs.|monitoring|0.7|What will we be measuring on the spans after it reopens?|~Strain gauges on spans
39|projects|decisions|paint-grey-green|The new steelwork is painted in a grey-green chosen with the iwi and the city's urban design panel.|appearance||What colour is the new steel?|
45|projects|decisions|variation-threshold|Variations under 25,000 NZD can be approved by Anneke as engineer's representative; anything larger goes to Deborah.|contract||As the engineer's rep, how big a contract change can I sign off myself?|
*20-100|projects|decisions|weekly-photo-report|Brannock sends a photo report every Friday, and it is filed with the monthly report to the council.|reporting||
*30-120|projects|decisions|river-path-detour|The river path under the bridge is closed during lifts and pier work, with a signed detour over the pedestrian bridge upstream.|traffic||
79|projects|decisions|jacket-design-inhouse|The pier 3 jacket is designed in-house by Anneke and Sione, with Hugh reviewing it as a separate package.|seismic||Who is designing the new concrete around the damaged pier?|p:sione-jacket
*60-140|projects|decisions|hold-points|Hold points are released by Anneke or Jared only, never by the contractor's own engineer.|quality||
*30-110|self|decisions|buy-eq-mount|Anneke decided to buy a Sky-Watcher EQ6-R Pro equatorial mount so she can track variable star fields for longer, and to keep the Dobsonian for outreach.|astronomy|0.6|What did I decide about a motorised mount for tracking the sky?|
*60-79|self|decisions|ebike-not-second-car|Anneke and Rhys decided to buy an e-bike for her commute instead of a second car.|commute||Why didn't we get a second car?|
*160-175|self|decisions|no-nationals|Anneke decided not to go to the national band contest in July because it clashes with the bridge opening.|band||Am I going to the band nationals, and why?|
*130-170|self|decisions|defer-leadership-course|Anneke decided to skip the Associate leadership course in June and do it in September instead, to stay close to the bridge opening.|career||
"""

PROCEDURES = r"""
10|work|procedures|site-visit|Site visits: book through Brannock's site office the day before, do the Brannock induction once, wear full PPE with a life jacket on the barge, and sign in and out on the gate tablet.|site|0.9|What do I have to do before I go onto the construction site?|
11|work|procedures|rfi-response|Contractor RFIs are answered within five working days: log the RFI in the register, draft the answer, get Jared or Bruce to check it, then issue it through the transmittal site.|rfi|0.8|What's the process for replying to a question from the contractor?|
15|work|procedures|hold-point-release|To release a hold point: inspect the work on site, check it against the inspection and test plan, photograph it, and sign the hold point sheet in the site office.|quality|0.8|How do I sign off a stage before the contractor can cover it up?|
17|work|procedures|incident-report|For any site incident or near miss: make the area safe, tell Owen within an hour, and log it in the SiteSafe app the same day.|safety|0.9|What do I do if something dangerous happens on site?|
18|work|procedures|lane-closure|Lane closures need a traffic management plan from Tess, approved by the council's corridor manager seven days ahead, and a letter drop to residents three days ahead.|traffic|0.7|How much notice does it take to shut a lane?|
22|work|procedures|drawing-issue|Drawing issue: Kirsty updates the model, Anneke checks the revision clouds, Bruce signs the title block, and the set goes out on the transmittal site with a register.|drawings||How does a new revision of the drawings get released?|
25|work|procedures|variation-process|Variations: Brannock sends a notice with a price, Priyanka checks the rates, Anneke assesses the time claim, and the engineer's instruction is issued only after the price is agreed.|contract|0.8|How does a change to the contract get priced and approved?|
28|work|procedures|concrete-testing|Every concrete pour gets six test cylinders: two tested at 7 days and four at 28 days by the Te Rapa lab, and the results go in the quality register.|quality||How is new concrete tested?|
31|work|procedures|timesheets|Timesheets are entered in Deltek by Friday 16:00 against the project's phase codes.|admin||When do my hours have to be in?|
35|work|procedures|expenses|Mileage and expenses are claimed monthly through the Xero Expenses app with photos of the receipts.|admin||How do I get paid back for things I bought for work?|
*20-80|work|procedures|model-room-booking|The model room and big screen are booked through the office's Outlook room calendar.|admin||How do I reserve the room with the big screen?|
38|work|procedures|river-works-notice|Before any riverbed work: notify Matiu 48 hours ahead, check the river flow on the regional council gauge, and stop if it is above 350 cubic metres per second.|river|0.8|What needs checking before the crew goes into the riverbed?|
44|work|procedures|flood-stand-down|When the flood warning goes amber: Brannock secures the barge to the spud piles, lifts all loose gear off the pier platforms, and closes the river path.|river|0.7|What happens on the job when the river rises?|
*40-120|work|procedures|cpd-logging|Anneke logs her continuing professional development in the Engineering New Zealand portal: at least 40 hours a year, with notes on what she learned.|chartership|0.7|What do I need to do each year to keep my chartered status?|
*50-140|work|procedures|ps1-signing|Producer statements: the design PS1 is signed by Anneke after the independent check and Hugh's peer review certificate; construction PS4s come from site inspections.|quality||What has to happen before I sign the design statement?|
*0-40|astro|procedures|collimation|Collimating the Dobsonian: let it cool an hour, centre the secondary with the sight tube, then adjust the primary screws with the laser until the dot sits in the ring.|astronomy|0.7|How do I line up the mirrors on the big telescope?|
*10-80|astro|procedures|variable-estimate|Variable star estimate: find the field with the chart, pick one comparison star brighter and one fainter, interpolate the magnitude, note the time in UT, and submit it to the AAVSO WebObs form.|astronomy||How do I make and send in a brightness estimate?|
*20-100|astro|procedures|dew-control|Dew control: put the dew heater strap on the corrector plate before dark and run it off the small lithium battery.|astronomy||How do I stop the telescope fogging up on damp nights?|
*20-120|astro|procedures|outreach-night|Outreach night: set up by 19:30, one volunteer per telescope, a red-light path to the car park, and no lasers pointed while children are in the queue.|astronomy||How is a public viewing evening run?|
*30-130|band|procedures|valve-oil|Horn care: oil the valves every week, grease the slides once a month, and give it a bath in warm soapy water every three months.|band||How do I look after my instrument?|
21|home|procedures|hens-worming|The hens get Flubenvet wormer mixed into their feed for seven days every three months, and their eggs are thrown away during those days.|pets|0.7|How do I deworm the hens?|
*0-40|home|procedures|hens-mites|Red mite check: look under the perches at night with a torch, and if there are mites, clean the coop and dust it with diatomaceous earth.|pets|0.7|What's my routine for parasites in the coop?|
*10-90|self|procedures|tax-return|Anneke checks her IRD summary in myIR after 31 March each year and claims the refund for her rental's expenses through her accountant.|admin||How do I sort out my taxes?|
*30-120|work|procedures|night-closure-checklist|Night closures: Tess's crew sets up the signs and barriers 15 minutes before the closure, Anneke or Jared checks the work area within the first hour, and the bridge must be open again by 5:00 or the contractor pays a penalty.|traffic||How does a night shutdown of the bridge run?|
*20-140|band|procedures|contest-day|Contest day: uniform with the burgundy jacket, warm up in the allocated room 30 minutes before the draw time, and no phones on stage.|band||What's the routine on a competition day with the band?|
*0-60|astro|procedures|aavso-charts|Comparison charts are made with the AAVSO Variable Star Plotter at a 3 degree field and printed on A4 before each session.|astronomy||Where do I get the maps for a variable star?|
*20-120|home|procedures|power-cut|In a power cut: the backup battery for the fridge is in the garage, and the gas camping stove is in the shed with two canisters.|home||What do we do when the electricity goes off at home?|
"""

EVENTS = r"""
117|projects|events|big-lift|The six steel girders for the shared path were lifted in on Saturday 2 May with a 250-tonne crawler crane; all six were in place by 15:40.|construction|0.9||
44|work|events|february-flood|After ex-cyclone rain on 18 February the Waikato River peaked at 720 cubic metres per second; the barge dragged an anchor and the pier 2 platform went under.|river|0.8|What happened at the bridge in the big storm in February?|~barge dragged its upstream anchor,~River peaked at 720
73|projects|events|pier3-corrosion|Hydrodemolition at pier 3 on 19 March exposed heavily corroded reinforcing bars on the upstream face, down to half their original diameter in places.|seismic|0.8|What nasty surprise turned up when they blasted the concrete off the third pier?|~rebar at pier 3 is badly corroded
100|work|events|dropped-spanner|On 15 April a 600 mm podger spanner fell from the deck and landed on the closed river path below; nobody was hurt, and work stopped for the afternoon.|safety|0.8||
138|band|events|regional-contest|Riverlea Brass came second in B grade at the regional contest in Tauranga on 23 May; Anneke's section got a special mention for the hymn.|band||How did the band go at the regional competition?|~Second place in B grade
128|work|events|associate-promotion|Anneke was made an Associate of Ridgeway Tane in the May partner round, announced on 13 May.|career|0.7||
58|astro|events|lunar-eclipse|Anneke watched the total lunar eclipse from the back lawn in the early hours of 4 March with Milo; totality was a dark coppery red.|astronomy||What did I stay up for in early March?|~Eclipse totality
103|astro|events|star-party|The Skywatchers' autumn star party at the club's Te Pahu dark site on 18 April had 40 members and the clearest sky of the year.|astronomy||
67|astro|events|school-outreach|Anneke ran a telescope evening at Brymer Intermediate for Milo's class on 13 March; Saturn was too low, so they looked at the Jewel Box and the Moon.|astronomy||What did Milo's class see through the telescope?|~Jewel Box
24|projects|events|prestart|The pre-start meeting with Brannock was held on 29 January at the council's Garden Place office; site establishment was set for 9 February.|construction||When was the kickoff meeting with the contractor?|
"""

# --------------------------------------------------------------------------
# changes of mind: d1|domain|facet|key1|value1|d2|key2|value2|themes|question
# --------------------------------------------------------------------------
PAIRS = r"""
3|projects|decisions|lift-april|The shared path girders will be lifted in over the weekend of 11 and 12 April.|81|lift-may|The girder lift moved to 2 and 3 May because the 250-tonne crawler crane is stuck on a wind farm job in Taranaki.|construction|
4|projects|decisions|opening-19-june|The shared path is due to open to the public on Friday 19 June.|158|opening-3-july|The shared path opening moved to Friday 3 July; the surfacing needs three dry days and June has been wet.|path|
4|people|facts|deborah-runs-project|Deborah Lusk is the council's day-to-day contact for the bridge.|116|marcus-runs-project|Marcus Tipene has taken over from Deborah as the council's project manager for the bridge while she is on secondment.|client|
3|work|preferences|one-on-one-tuesday|The 1:1 with Bruce is on Tuesdays at 9:30.|60|one-on-one-monday|The 1:1 with Bruce moved to Mondays at 15:00, starting 9 March.|meetings|When's my regular catch-up with my manager?
24|projects|facts|site-meeting-thursday|The weekly site progress meeting is on Thursdays at 10:00 in Brannock's site office.|105|site-meeting-wednesday|The weekly site progress meeting moved to Wednesdays at 7:30 so the night shift supervisor can attend.|meetings|What day and time is the weekly meeting at the site office now?
2|band|preferences|rehearsal-wednesday|Riverlea Brass rehearses on Wednesday evenings at 19:00 in the Riverlea community hall.|66|rehearsal-monday|Riverlea Brass now rehearses on Monday evenings at 19:00 at the Frankton scout hall, because the community hall is being re-roofed.|band|Which evening is band practice on now?
1|astro|preferences|main-scope-dob|Anneke's main telescope is the 12-inch Dobsonian.|112|main-scope-sct|Anneke mostly observes with the 8-inch Celestron on the new equatorial mount now; the 12-inch Dobsonian comes out only for outreach.|astronomy|Which telescope do I mostly use at the moment?
4|family|facts|milo-cricket|Milo plays junior cricket for Fairfield on Saturday mornings.|122|milo-basketball|Milo's summer cricket is over; he plays in the winter basketball league on Friday evenings at the Western Community Centre.|family|What sport is my son doing at the moment, and when?
0|self|preferences|commute-car|Anneke drives to the office and parks in the Anglesea Street building.|80|commute-ebike|Anneke rides her new e-bike to work along the river path, about 20 minutes each way.|commute|What's my usual way into work at the moment?
2|work|facts|desk-anglesea|Anneke's desk is on level 2 of the Anglesea Street office.|95|desk-victoria|Ridgeway Tane moved to the new Victoria Street building; Anneke's desk is on level 4 by the model room.|office|Where's my desk now?
2|people|facts|sione-path|Sione is working on the shared path design with Jared.|83|sione-jacket|Sione moved onto the pier 3 jacket design with Anneke.|team|What is the graduate working on now?
7|projects|decisions|piers-frp|All five piers are strengthened with carbon-fibre (FRP) wraps.|78|pier3-jacket|Pier 3 gets a 250 mm reinforced concrete jacket instead of an FRP wrap because of the corroded bars; the other piers keep the FRP wraps.|seismic|
9|projects|decisions|path-asphalt|The shared path deck is surfaced with 30 mm of asphalt.|92|path-epoxy|The shared path gets a thin epoxy and bauxite surfacing instead of asphalt, to save weight on the clip-on girders.|path|What's going on top of the walkway deck?
14|projects|facts|closures-2200|Night closures run from 22:00 to 5:00.|126|closures-2000|Night closures now start at 20:00 on Monday to Thursday nights, with the council's approval, to fit in the bearing swaps.|traffic|From what time is the bridge shut at night now?
30|family|events|joost-wedding-august|Joost and Femke's wedding is on 22 August in Rotterdam, and the family plans to fly over for it.|109|joost-wedding-december|Joost and Femke moved their wedding to 19 December, so the trip to the Netherlands is now planned over Christmas.|family|
3|band|facts|second-horn|Anneke plays second tenor horn in Riverlea Brass.|150|solo-horn|Anneke moved up to solo tenor horn after Ngaire moved to Tauranga.|band|
5|home|facts|hens-mash|The hens eat layer mash mixed with kitchen scraps.|70|hens-pellets|The hens are on layer pellets with oyster grit; the mash attracted rats.|pets|
1|self|preferences|lunch-runs|Anneke runs along the river at lunchtime three days a week.|74|early-swims|Anneke swims at Waterworld at 6:30 on Mondays, Wednesdays and Fridays instead of lunchtime runs, which the site visits kept cancelling.|exercise|What do I do for exercise now?
7|work|preferences|checker-bruce|Bruce is the independent checker for Anneke's seismic calcs.|95|checker-jared|Jared is now the independent checker for the retrofit calcs, because Bruce is tied up with the airport terminal job.|quality|Who checks my calculations at the moment?
10|projects|facts|rfi-excel|Contractor RFIs are tracked in a shared Excel register.|57|rfi-aconex|Contractor RFIs are now tracked in Brannock's Aconex project, which Ridgeway Tane can log into.|rfi|Where are the contractor's queries logged now?
8|projects|decisions|buses-on-bridge|Buses keep using the bridge throughout the works.|84|buses-detour|Buses on routes 2 and 17 are detoured over the Boundary Road bridge until the deck works finish.|traffic|
6|people|preferences|hugh-pdf|Hugh wants review packages as marked-up PDFs by email.|54|hugh-bluebeam|Hugh wants review packages in a Bluebeam Studio session so everyone sees his comments live.|review|How does the peer reviewer want design packages sent now?
12|astro|facts|club-uni|The Waikato Skywatchers meet on the first Tuesday of the month in a lecture theatre at the university.|98|club-te-pahu|The Waikato Skywatchers now meet on the first Tuesday at their own clubrooms at the Te Pahu dark site.|astronomy|
2|family|facts|milo-driven-school|Rhys drops Milo at school on his way to the clinic.|100|milo-bikes-school|Milo bikes to school with his friend Ari who lives on the same street.|family|How does my son get to school now?
0|home|facts|car-mazda|The family car is a 2014 Mazda 3.|87|car-leaf|The Mazda was sold and the family car is now a used 2021 Nissan Leaf.|car|
14|work|facts|billable-75|Anneke's billable target is 75% of her hours.|130|billable-60|With the Associate role Anneke's billable target dropped to 60%, to leave time for business development.|career|What share of my hours should be chargeable now?
1|home|facts|bins-tuesday|Rubbish and recycling are collected on Tuesday mornings.|53|bins-thursday|Rubbish and recycling collection moved to Thursday mornings after the council changed the routes.|home|Which day do the bins go out on the kerb?
9|astro|facts|outreach-last-friday|The club's public viewing nights are on the last Friday of each month.|71|outreach-first-quarter|The club's public viewing nights are now on the Saturday nearest first quarter, when the Moon is worth showing.|astronomy|When are the club's open evenings held now?
11|people|facts|kirsty-model|Kirsty Boyd looks after the bridge model and the drawing sets.|123|tomasi-model|Tomasi Vea covers the bridge model and drawing sets while Kirsty is on parental leave until December.|drawings|
14|projects|decisions|bearings-elastomeric|All bearings are replaced with plain elastomeric bearings.|52|bearings-lead-rubber|The abutment bearings are lead-rubber isolators after Hugh's review; the piers keep plain elastomeric bearings.|seismic|What type of bearings are going in at the ends of the bridge?
"""

# --------------------------------------------------------------------------
# keyed facts: day|domain|subject|attribute|value|question
# --------------------------------------------------------------------------
FACTS = r"""
0|self|anneke|employer|Ridgeway Tane Consulting|
0|self|anneke|job-title|Senior Bridge Engineer|
128|self|anneke|job-title|Associate, Bridges|
1|self|anneke|suburb|Hillcrest|
2|self|anneke|phone|iPhone 12|
76|self|anneke|phone|iPhone 16|Which phone am I carrying these days?
3|self|anneke|cpeng-number|CPEng 1042317|What's my chartered engineer registration number?
*|self|anneke|passport-nl-expiry|14 August 2029|When does my Dutch passport run out?
*|self|anneke|nz-licence-expiry|22 October 2031|
10|self|anneke|blood-type|O positive|What's my blood group?
*|self|anneke|birthday|27 November|
*|self|anneke|gp|Dr. Helen Ashworth, Hillcrest Medical Centre|Who is my family doctor?
5|self|anneke|leave-balance|19 days|
95|self|anneke|leave-balance|12 days|How much annual leave do I have left?
20|astro|anneke|variable-estimates|1|
60|astro|anneke|variable-estimates|41|
150|astro|anneke|variable-estimates|118|How many brightness estimates have I sent in so far?
*|astro|dobsonian|aperture|12 inch, f/5|
*|astro|dobsonian|make|GSO, bought second-hand in 2019|
110|astro|mount|model|Sky-Watcher EQ6-R Pro|
4|astro|anneke|telescopes|2, a 12-inch Dobsonian and an 8-inch Celestron|How many telescopes do I own?
12|self|anneke|cpd-hours|14|
96|self|anneke|cpd-hours|38|How many professional development hours have I logged this year?
*|astro|skywatchers|membership-fee|60 NZD a year|
*|band|anneke|instrument|Besson Sovereign tenor horn, on loan from the band|
*|band|riverlea|grade|B grade|
*|band|riverlea|members|31|
16|work|monckton|contract-value|14.2 M NZD|
79|work|monckton|contract-value|15.1 M NZD|
141|work|monckton|contract-value|15.6 M NZD|
17|work|monckton|open-rfis|12|
52|work|monckton|open-rfis|47|
105|work|monckton|open-rfis|31|
161|work|monckton|open-rfis|9|How many contractor questions are still waiting for an answer?
35|work|monckton|weeks-behind|0|
46|work|monckton|weeks-behind|3|
84|work|monckton|weeks-behind|5|
144|work|monckton|weeks-behind|2|
0|work|monckton|girders-installed|0|
117|work|monckton|girders-installed|6|
0|work|monckton|bearings-replaced|0|
133|work|monckton|bearings-replaced|8|
165|work|monckton|bearings-replaced|16|
*|work|monckton|spans|5|
*|work|monckton|year-built|1961|
*|work|monckton|length|212 m|
*|work|monckton|daily-traffic|18,500 vehicles a day|How many cars cross the bridge daily?
45|work|river|feb-peak-flow|720 cubic metres per second|
*|work|monckton|consent-number|LUC-2025-0417|What's the reference of our resource consent?
*|work|monckton|pier3-core-strength|27 MPa|
0|work|ridgeway|staff|58|
120|work|ridgeway|staff|61|
0|work|bridges-team|size|5|
119|work|bridges-team|size|6|
22|work|peer-review|status|design report under review|
50|work|peer-review|status|certificate issued 24 February|
9|projects|shared-path|width|3.5 m|
*|projects|shared-path|length|230 m including ramps|
0|projects|monckton|night-closures-done|0|
99|projects|monckton|night-closures-done|14|
170|projects|monckton|night-closures-done|31|How many night shutdowns have we done so far?
*|projects|monckton|design-fee|1.34 M NZD|
*|projects|monckton|job-number|RT-21447|
3|home|hens|count|3|
61|home|hens|count|5|How many hens are in the coop these days?
8|home|hens|eggs-per-week|14|
90|home|hens|eggs-per-week|9|
160|home|hens|eggs-per-week|4|How many eggs are the hens laying a week?
*|home|house|rates|4,380 NZD a year|
*|home|house|power-company|Octopus Energy|
1|family|milo|age|11|
155|family|milo|age|12|
*|family|milo|school|Brymer Intermediate|
80|self|ebike|odometer|0 km|
124|self|ebike|odometer|410 km|
175|self|ebike|odometer|1,180 km|How far have I ridden the e-bike?
*|self|ebike|model|Giant Explore E+ 3|
*|family|rhys|clinic|Morrinsville Vets|
0|astro|skywatchers|members|84|
120|astro|skywatchers|members|97|How big is the astronomy club now?
"""

COLLEAGUE_FACTS = [
    # name, extension, location, start-year, manager, discipline
    ("bruce", "4410", "level 4, corner office", "1996", "the managing director", "bridges"),
    ("sione", "4432", "level 4, desk 12", "2026", "Bruce", "structures"),
    ("kirsty", "4418", "level 4, BIM bay", "2014", "the BIM manager", "drafting"),
    ("jared", "4427", "level 4, desk 9", "2021", "Bruce", "steel design"),
    ("aroha", "4305", "level 3, geotech bay", "2018", "the geotechnical lead", "geotechnical"),
    ("priyanka", "4251", "level 2, commercial team", "2020", "the commercial manager", "quantity surveying"),
    ("owen", "4102", "level 1, reception side", "2015", "the operations director", "health and safety"),
    ("hayley", "4260", "level 2, planning bay", "2019", "the planning lead", "resource planning"),
    ("tess", "027 555 0184", "Brannock site office", "2017", "Craig", "traffic management"),
    ("nikhil", "027 555 0146", "Brannock site office", "2022", "Craig", "site engineering"),
    ("deborah", "07 555 0121", "council, Garden Place", "2012", "the council's infrastructure manager", "project management"),
]
COLLEAGUE_FACT_QS = {
    ("jared", "extension"): "What's the internal number for the steel designer?",
    ("aroha", "location"): "Which floor is the geotech engineer on?",
    ("priyanka", "manager"): "Who does the QS answer to?",
    ("nikhil", "extension"): "What's the mobile for the contractor's site engineer?",
    ("kirsty", "start-year"): "How long has the BIM tech been with the firm?",
    ("owen", "extension"): "How do I ring the safety manager from my desk phone?",
}

KV = r"""
0|sharepoint-project|RT-21447 Monckton St Bridge / 04 Design|
1|bluebeam-session|MSB-retrofit-review-2026|Which online review room do I use for markups?
2|wifi-office-ssid|RidgewayTane-Staff|What's the staff wifi called at work?
2|wifi-home-ssid|Hillcrest-Skies|
3|preferred-meeting-time|10:00-12:00 Tuesday to Thursday|When do I like meetings to be booked?
58|aconex-login|anneke.visser@ridgewaytane.co.nz, SSO|
5|locker-code|4-11-28|What's the combination on my locker?
96|coffee-near-office|Rocket Coffee on Victoria Street|
6|lunch-spot|the dumpling place in Garden Place|
6|favorite-restaurant|Gothenburg on the river|Where do I like to eat out?
7|bike-shop|Bike Barn Te Rapa|
7|eyepiece-supplier|Sirius Optics in Auckland|Where do I buy eyepieces and filters?
8|current-book|The Great Bridge by David McCullough|
8|podcast|Astronomy Cast|Which show do I listen to about space?
9|airpoints-number|AP 3318 0072|What's my Air New Zealand frequent flyer number?
9|hi-vis-size|women's L, long sleeve|
10|notes-app|Obsidian|Where do I keep personal notes?
11|password-manager|1Password|
12|planetarium-app|SkySafari 7 Pro|Which app do I use to find things in the sky?
12|aavso-observer-code|VAN|
13|eyepiece-favourite|Explore Scientific 14 mm, 82 degrees|
14|horn-mouthpiece|Denis Wick 4AM|What mouthpiece do I use on the horn?
82|ebike-tyre-pressure|45 psi|
16|strava|anneke.rijdt|
17|side-project|a one-page guide to reading old bridge drawings for graduates|What's my little teaching project on the side?
18|emergency-contact|Rhys, 021 555 0193|Who should be called if something happens to me?
19|wine|Central Otago pinot noir|Which wine do I like?
19|cheese|Mahoe aged gouda|
20|cinema|Lido Cinema|
20|grocery|Hamilton farmers market on Sunday mornings|
21|hairdresser|Cutting Room Hillcrest, every 6 weeks|
21|pharmacy|Unichem Hillcrest|Which chemist do I use?
22|busit-card|Bee Card, pay as you go|
88|car-plate|NQF 418|What's our number plate?
75|toolbox-drawer|calculator, scale rule and spare site glasses|
24|vet-hens|Dr. Paula Grey at Avian Vets Hamilton|
24|house-insurance|AMI home and contents|
25|rhys-clinic-line|07 555 0150|
123|milo-coach|Coach Dre at the Western Community Centre|Who coaches Milo's basketball team?
27|ria-address|Biltstraat 112, Utrecht|What's my mum's home address?
28|joost-phone|+31 6 5550 2231|
31|home-insurance-policy|AMI 77-402-118|
33|river-gauge|Waikato River at Hamilton Traffic Bridge, regional council site|Which river level gauge do I check?
71|hen-feed|Topflite layer pellets from Farmlands|Where do I buy the chooks' pellets?
38|site-office|Brannock site office, Monckton Street north car park|
39|conference-budget|2,500 NZD per year|What's my yearly conference budget?
40|learning-budget|800 NZD for courses|
41|eng-nz-membership|Engineering New Zealand member 221907|
43|aavso-chart-folder|Obsidian / Astro / Charts|
44|site-gate-code|1961|What's the code for the site gate?
45|hold-point-sheets|site office, blue folder on the left|
46|transmittal-site|SharePoint / RT-21447 / Transmittals|
47|night-closure-hotline|0800 555 672|What number do residents call about the night closures?
48|calc-folder|RT-21447 / 04 Design / Calcs / Seismic|
49|bridge-manual|NZTA Bridge Manual, third edition|
100|incident-ref|SiteSafe INC-2026-0415|
120|crane-company|Titan Cranes, 250 t crawler|Who supplied the big crane?
112|lift-plan|Brannock lift plan rev C|
137|contest-hotel|Trinity Wharf Tauranga, 22-23 May|
76|bridge-archive-box|council archive box 1961-04, Monckton St drawings|
55|physio-exercises|shoulder band rows and wall slides|What exercises do I do for my shoulder?
56|dob-eyepieces|ES 24 mm, ES 14 mm, Baader zoom|
57|eclipse-times|totality 00:04 to 01:03 NZDT on 4 March|
126|ebike-lock|Abus Bordo 6000|
118|bridge-bbq|Brannock's crew barbecue, 8 May|
140|regional-contest-piece|Kingdom Triumphant (hymn) and The Year of the Dragon|What pieces did the band play at the regionals?
150|band-fees|120 NZD a term|
79|hall-address|Frankton scout hall, Massey Street|What's the street address of the band's practice hall now?
63|te-pahu-gate|padlock code 0314|What's the code for the dark site gate?
64|observing-chair|Starbound adjustable chair|
66|skywatchers-newsletter|Southern Nights, monthly|
67|outreach-roster|Google Sheet shared by Marama|
70|netherlands-trip-budget|9,000 NZD for three|
69|airline|KLM via Singapore|
62|ria-flight|NZ 289 Singapore-Auckland, 14 March|
106|ria-return|Singapore Airlines, 21 April|
121|milo-basketball-fees|180 NZD a season|
57|lunar-eclipse-spot|back lawn, south-east corner|
110|eq6r-price|3,450 NZD from Sirius Optics|How much did the new mount cost?
149|matariki-dawn|club dawn viewing at Te Pahu, 10 July|
111|deborah-secondment|regional transport plan, six months|
78|mentoring-notes|Obsidian / Mentoring / Sione|
96|sione-goals|finish the first draft of his CPEng competence log by June|
97|model-room|level 4, seats 12|
99|brannock-night-super|Wayne, ext 3, site radio channel 4|
121|marcus-phone|07 555 0138|How do I reach the new council project manager?
85|variation-log|RT-21447 / 06 Contract / Variations|
119|tomasi-email|tomasi.vea@ridgewaytane.co.nz|
150|opening-invites|council comms team, 200 guests|
145|contest-recording|Dropbox / Riverlea / Regionals 2026|
61|new-hens|Ruby and Pearl, Shaver Browns|What are the new hens' names?
89|tea|rooibos from T2|
90|coffee-beans|Rocket single origin Ethiopia|
91|ebike-insurance|AMI, 4,800 NZD cover|
123|dew-heater|Astrozap strap, 8 inch|
93|river-loop|Hamilton Gardens and back, 14 km|How long is my usual riverside ride?
94|band-uniform|burgundy jacket, black trousers|
155|winter-holiday|Ruapehu, 4 to 11 July|When is our winter holiday?
156|ruapehu-lodge|Skotel Alpine Resort, Whakapapa|
97|anniversary|14 February, together since 2010|
165|anniversary-dinner|Palate on Victoria Street|
60|hen-sitter|Leah next door, eggs in exchange|Who looks after the chickens when we're away?
100|myir-login|in 1Password|
136|contest-draw|Riverlea drawn fourth, 14:20|
138|contest-adjudicator|Dr. Rosa Hetherington|
163|next-project|Te Awa Road underpass, tender in August|
161|opening-ceremony|3 July, 10:00, north abutment|
29|observing-notebook|Moleskine squared, volume 7|
34|rhys-on-call|every fourth weekend|Which weekends is Rhys working?
52|aavso-password-hint|in 1Password under AAVSO|
"""

# --------------------------------------------------------------------------
# unique journal episodes: day|hour|text|question|also
# --------------------------------------------------------------------------
JOURNAL = r"""
0|9.1|First day of the new setup: Anneke asked me to keep track of people, decisions and procedures for the bridge job, the band, the telescope and home.|
0|14|Sione's first day. Anneke walked him across the Monckton Street Bridge and under the north span to show him the cracked cross-beams.|
1|11|Sione's laptop came without a Deltek licence; IT had to buy a seat before he could book his hours.|What went wrong with the graduate's setup in his first week?
2|16|Tender evaluation meeting: Brannock Civil ranked first on price and methodology, Hollis Construction second.|Who came out on top when we scored the bids?
3|21.5|Jupiter and its four big moons through the Dobsonian from the back lawn; Milo counted them himself.|
7|8.9|Drone survey found a loose expansion joint plate on span 4; the council put a steel plate and cones over it by lunchtime.|What did the underside flight find in the second week of January?
8|14|Kirsty sent the first full drawing set for the tender addendum, 86 sheets.|
9|19.5|Lionel lent Anneke his R Carinae chart and showed her how to judge the comparison stars.|
10|10|Hayley confirmed the consent condition: no riverbed works after 31 May.|
15|15|Bruce marked up the linkage bolt detail in red pen; wants a longer anchorage into the crossbeam.|
14|15|Core samples from pier 1 came back: concrete sound, cover 45 mm, low chlorides.|What did the first core samples show?
15|10|Deborah asked for a monthly one-page status report to the council starting in February.|What did the council's project manager ask me for in mid-January?
16|13|Contract awarded to Brannock Civil at 14.2 M NZD; Craig Dunstan will be their project manager.|
17|18|Hetty stopped laying and sat in the nest box all day; Rhys says she's broody.|
20|21|Anneke sent her first variable star estimate to the AAVSO: R Carinae at magnitude 6.8.|When did I submit my very first brightness estimate?
22|16|Aroha finished the liquefaction report: the north abutment sands are a problem, the south is on rock.|
23|12|Hugh confirmed he'll review the seismic package in three parts.|
25|10|Milo's cricket team won by 4 wickets; he took two catches at square leg.|
28|14|Hugh's first round of comments: 23 items, mostly about the linkage bolts and the pier shear capacity.|How many comments did the first peer review round come back with?
30|15|Matiu blessed the site at dawn before site establishment, with Brannock's crew and the council.|
31|17|Bruce agreed to pay for Sione's Engineering New Zealand graduate membership.|
35|9.5|Site establishment started: site office, fencing and the barge arriving on a low-loader from Tauranga.|
44|7.2|River rising fast after the overnight rain; regional council flood warning went amber at 6:50.|
44|10.5|The barge dragged its upstream anchor in the flood; Brannock got a tug to hold it against pier 2.|
44|16|River peaked at 720 cubic metres per second; pier 2 platform under water; nobody hurt.|
49|14|River back under 350; Brannock checked the barge moorings and restarted pier work.|
50|11|Hugh's design certificate for the seismic package arrived, signed.|When did the peer reviewer's certificate for the design arrive?|f:work:peer-review:status:2
53|10|Sione passed his first hold point inspection on his own, the pier 1 scaffold base.|
56|15|Priyanka valued the flood variation at 186,000 NZD; it goes to Deborah for approval.|How much did the flood cost the job?
58|1.1|Eclipse totality from the back lawn; the Moon went dark copper and Milo photographed it on Rhys's phone.|
79|11|Sione asked to join the pier 3 jacket design; Anneke will talk to Bruce.|
61|17|Two new Shaver Brown pullets joined the flock; Hetty pecked them for a day.|
64|9|Sent Deborah the February status report as a one-pager.|
65|21.5|Last rehearsal at the Riverlea hall before the roof work; the band moves to the scout hall.|
67|20|Telescope night at Brymer Intermediate: 28 kids, the Jewel Box and the Moon, Saturn too low in the twilight.|
68|15|Ria arrived from Utrecht for six weeks; Milo made a welcome sign in Dutch.|When did my mum arrive for her visit?
73|11|Hydrodemolition: the rebar at pier 3 is badly corroded on the upstream face; work stopped on that pier.|
73|15|Anneke, Jared and Aroha at pier 3 with Craig; samples taken, section loss up to 50%.|
78|10|Decision with Bruce and Hugh: pier 3 gets a concrete jacket; FRP stays on the other piers.|
81|16|The crane hire company can't release the 250 t crawler crane until late April; the lift moves to 2 May.|Why was the big lift delayed?
84|13|Buses detoured from today; Deborah's team put the signs up over the weekend.|
87|12|Sold the Mazda on Trade Me for 9,200 NZD and collected the Leaf from the dealer in Frankton.|How much did the old car sell for?
89|9|Easter Saturday at Raglan with Ria; she swam, nobody else did.|
95|10|Moved into the new Victoria Street office; unpacking the boxes took all morning.|
98|19|Club meeting in the new Te Pahu clubrooms for the first time.|
100|10.2|A podger spanner fell from the deck onto the closed river path below; stop-work called, Owen on his way.|
100|14|Owen and Craig's investigation: the tool lanyard clip was not rated; all tools on the deck must be tethered from tomorrow.|What changed on the deck after the tool fell off the bridge?
103|22|Star party at Te Pahu: 40 members, perfect sky; Anneke logged 14 variable stars in one night.|
106|16|Drove Ria to Auckland airport; she cried at the gate, then texted from Singapore.|
109|20|Joost called: the wedding is moving to December because Femke's school term clashes.|
110|12|Picked up the EQ6-R Pro from Sirius Optics in Auckland.|
114|7.5|Site meeting: lift goes ahead Saturday if the 6:00 gust forecast is under 35 km/h.|
117|6.4|Lift day: crane crew on site at 6:00, wind 12 km/h, go decision at 6:30.|
117|15.7|All six girders in place by 15:40; Craig bought the crew pizzas.|How did the day with the big crane go in the end?|p:big-lift
116|12|Deborah starts her secondment on Monday; Marcus Tipene is taking over as council project manager.|
122|17|Milo's first basketball game: lost by 30 but he scored 6 points.|
123|13|Kirsty's leaving lunch before parental leave; Tomasi takes over the model.|
128|16|Anneke's promotion to Associate was announced at the all-staff meeting.|What happened to my job title in May?
133|11|Eight bearings replaced so far; the abutment isolators go in next month.|
138|16|Second place in B grade at the regional contest; the hymn got a special mention from the adjudicator.|
141|14|Contract variation for the pier 3 jacket agreed; contract now 15.6 M NZD.|
144|15|Programme recovery: Brannock added a second night crew; now two weeks behind.|
150|10|Ngaire is moving to Tauranga; Gavin asked Anneke to take over solo horn.|
155|18|Milo's 12th birthday: pocketknife, chocolate cake, and a promise of a day on the snow in July.|
158|10|Surfacing postponed again by rain; Marcus agreed to move the opening to 3 July.|
162|14|Bruce asked Anneke to lead the tender for the Te Awa Road underpass in August.|What new job did Bruce ask me to lead?|k:next-project
165|11|All 16 bearings are now replaced.|
170|15|Last night closure on the bridge; the deck is open 24 hours from tonight.|
176|10|Q3 planning: bridge opening, defects list, and the underpass tender.|What's on my plate for the third quarter?
178|15|Strain gauges on spans 2 and 4 are live and logging to the council's dashboard.|
179|10.5|Opening of the shared path: the mayor cut the ribbon at the north abutment and Matiu led the karakia.|Who officially opened the new path, and how was it marked?
"""

WEEKLY_FOCUS = [
    "Sione's onboarding and the tender evaluation",
    "the expansion joint plate on span 4 and Kirsty's tender addendum drawings",
    "the pier 1 core results and the contract award",
    "Aroha's liquefaction report and the pre-start meeting",
    "Hugh's first comments and the site blessing",
    "site establishment and the barge arrival",
    "the February flood and the barge moorings",
    "Hugh's design certificate and Sione's first hold point",
    "the flood variation, the lunar eclipse and the switch to Aconex for RFIs",
    "the 1:1 move to Mondays, the school telescope night and Ria's arrival",
    "the pier 3 corrosion find",
    "the pier 3 jacket decision and the crane delay",
    "the bus detour and selling the Mazda",
    "the office move to Victoria Street",
    "the dropped spanner investigation and the star party",
    "Ria flying home and the new site meeting time",
    "the girder lift",
    "Marcus taking over from Deborah and Kirsty's handover",
    "the Associate announcement and the bearing swaps",
    "the bearing count check and the regional band contest",
    "the pier 3 jacket variation and programme recovery",
    "the King's Birthday weekend and taking over solo horn",
    "Milo's birthday and the surfacing delays that pushed the opening back",
    "the Te Awa Road underpass tender and the bearing swaps finishing",
    "the last night closures",
    "Q3 planning, the strain gauges and the bridge opening",
    "the opening defects list and the Ruapehu holiday",
]
WEEKLY_FOCUS_QS = {
    2: "What was I mostly juggling the week of 19 January?",
    10: "What did that week starting 16 March mostly revolve around?",
}
ONE_ON_ONE_TOPICS = [
    "went over the fee burn on the bridge job", "talked about Sione's progress", "discussed the staffing for night inspections",
    "reviewed the council monthly report", "talked about Anneke's goals for the year",
    "discussed Brannock's performance", "short one, Bruce was called to the airport job", "talked about the next tender",
    "reviewed open risks", "talked about the team's overtime", "discussed the variation claims",
    "talked about hiring another graduate",
]
MENTOR_TOPICS = [
    "went through his pier calcs", "talked about reading 1960s drawings", "practised answering an RFI together",
    "discussed how to push back on a contractor", "planned his next site visit", "reviewed his chartership log",
    "talked about load combinations", "went over his hold point photos",
]
PCG_TOPICS = ["the programme", "the flood variation", "the bus detour", "the budget", "the opening date",
              "the pier 3 jacket", "residents' complaints about night noise", "the girder lift", "the monitoring plan"]
SITE_MEETING_TOPICS = ["went through the three-week lookahead", "mostly RFIs and the hold point schedule",
                       "talked about the night crew roster", "short one, most of the crew on the barge",
                       "reviewed the traffic management incidents", "went through the quality register",
                       "discussed the concrete results", "went through the variation list"]
READING = [
    ("the NZTA Bridge Manual section on seismic retrofit", "assess the weakest link first, usually the seats"),
    ("a Priestley and Seible paper on pier jacketing", "a steel or concrete jacket adds confinement as well as strength"),
    ("the Christchurch bridge damage survey", "most damage came from abutment rotation and lateral spreading"),
    ("a conference paper on linkage bolts", "rubber washers stop the bolts snapping under thermal movement"),
    ("the NZ guide to cathodic protection", "check the anode current monthly in the first year"),
    ("a Concrete NZ note on hydrodemolition", "water jetting does not micro-crack the remaining concrete"),
    ("a paper on bats under bridges", "long-tailed bats use expansion joints and voids for roosting"),
    ("the AAVSO visual observing manual", "always record the comparison stars you used"),
    ("a book on the southern sky", "the Jewel Box is best when it is high in autumn evenings"),
    ("a Sky and Telescope article on Mira variables", "they can change brightness by six magnitudes over a year"),
    ("a paper on dark-sky friendly lighting", "3000 K or warmer keeps sky glow and insect deaths down"),
    ("the NZS 3910 guide for engineers to contract", "the engineer must act fairly between the parties"),
    ("a brass band blog on breathing", "breathe in time, not before the phrase"),
    ("a tenor horn method book", "practise lip slurs every day for a warm tone"),
    ("a paper on lead-rubber bearings", "the lead core yields first and soaks up the energy"),
    ("the WorkSafe guide on working at height", "tools above people need lanyards rated for the tool"),
    ("the Engineering New Zealand code of ethics", "report any risk to public safety you become aware of"),
    ("an article on teaching graduates", "explain why before how"),
]
BAND_PIECES = ["the test piece", "Kingdom Triumphant", "The Year of the Dragon", "a march for Anzac Day",
               "the hymn for the contest", "sight-reading new pieces", "Cornish Cavalier", "Nessun Dorma",
               "the slow melody for the contest", "scales and long tones"]
OBS_TARGETS = ["R Carinae", "L2 Puppis", "eta Carinae", "the Jewel Box", "Omega Centauri", "the Large Magellanic Cloud",
               "the Tarantula Nebula", "47 Tucanae", "Jupiter", "the Moon's terminator", "R Centauri", "T Centauri",
               "the Carina Nebula", "the Southern Pleiades"]
RFI_TOPICS = ["linkage bolt", "pier 2 FRP wrap", "pier 3 jacket", "cross-beam", "expansion joint", "bearing plinth",
              "shared path girder", "handrail", "drainage scupper", "stone columns", "cathodic protection",
              "lighting conduit"]
RFI_ISSUES = ["clash with existing reinforcement at the {c}", "dimension missing on the {c} drawing",
              "alternative product proposed for the {c}", "tolerance question on the {c}",
              "set-out of the {c} does not match the survey", "coring location for the {c}",
              "weld detail at the {c} unclear", "sequence of works for the {c}",
              "substitution of bar size at the {c}", "cover to the {c} less than specified",
              "access for inspection of the {c}", "temporary works near the {c}",
              "grout type for the {c}", "fixing detail at the {c} not buildable", "survey hold on the {c}"]

PLACES = r"""
*|work|facts|org-ridgeway|Ridgeway Tane Consulting is a 60-person engineering consultancy with offices in Hamilton and Tauranga.|firm||
*96-180|work|facts|office-victoria|The Hamilton office is on Victoria Street, near the river and ten minutes' walk from the bridge.|office||
*|work|facts|bridge-description|The Monckton Street Bridge is a 1961 five-span reinforced concrete bridge, 212 m long, on four river piers.|bridge||
*|work|facts|brannock-civil|Brannock Civil is a Waikato contractor of about 250 staff, with a precast yard at Te Rapa.|contractor||
*|work|facts|tasman-peer-review|Tasman Peer Review is a two-person firm in Cambridge that does seismic peer reviews for councils.|review||
*|work|facts|council-garden-place|The council's project team sits in the Garden Place office building.|client||
*|work|facts|te-rapa-lab|The Te Rapa materials lab tests the concrete cylinders and steel samples for the job.|quality||
*36-150|work|facts|site-office|Brannock's site office is three containers in the north car park, with the barge moored below pier 1.|site||
*|astro|facts|skywatchers|The Waikato Skywatchers is an amateur astronomy club of about 90 members with a dark site and observatory at Te Pahu.|astronomy||
*|astro|facts|te-pahu-site|The club's dark site at Te Pahu is on a farm under Mount Pirongia, forty minutes from town.|astronomy||
*|band|facts|riverlea-brass|Riverlea Brass is a community brass band of about thirty players that competes in B grade.|band||
*|astro|preferences|lionel-pencil|Lionel insists on recording estimates in pencil in a notebook first and typing them up the next day.|astronomy||How does Lionel want observations written down?|
*|people|preferences|ngaire-early|Ngaire likes to leave for contests two hours early and stop for a pie in Matamata.|band||Where do we stop on the way to a contest?|
*|people|preferences|hugh-numbers-table|Hugh wants every design change summarised in a table of demand and capacity ratios before he reads the calcs.|review||How does the peer reviewer like a design change summarised?|
*|people|preferences|craig-whiteboard|Craig wants urgent engineering answers written on the site office whiteboard as well as emailed, so the foremen see them.|contractor||How do I make sure the contractor's foremen see an urgent answer?|
*|family|facts|rhys-scanning-season|Rhys does pregnancy scanning of dairy herds from March to May and leaves home at 4:30 on scanning days.|family||Why is my partner up so early in autumn?|
*|home|facts|neighbour-leah|Leah next door has a spare key to the house.|neighbours||Who has a spare key to our house?|
*|self|preferences|podcast-commute|Anneke listens to astronomy podcasts on her commute, never music.|commute||
*|family|preferences|milo-no-photos|Milo doesn't want photos of his games posted online; he says it's embarrassing.|family|0.6|Can I put pictures of Milo's matches on social media?|
*|self|preferences|hot-wash-morning|Anneke prefers to review a big site day in a short written debrief the next morning, not the same evening.|site||When do I like to look back on how a major day on site went?|
*|self|preferences|horn-practice|Anneke practises the horn for 20 minutes after dinner, with a practice mute after 20:30 so she doesn't wake Milo.|band||How do I fit in practice without disturbing the house?|
*120-170|people|preferences|marcus-teams|Marcus wants updates in the shared Teams channel with the council comms team, not one-to-one emails.|client||How does the new council contact want to get updates?|
*|home|facts|back-lawn|The back lawn has a concrete pad Anneke poured for the telescope, with a power outlet and a clear view south.|home||
"""

SLOTS = {
    "colleague": ["Jared", "Sione", "Kirsty", "Aroha", "Bruce", "Priyanka", "Hayley"],
    "calc": ["the linkage bolt anchorage", "the pier 2 FRP wrap", "the pier 3 jacket", "the cross-beam connections",
             "the abutment stone columns", "the shared path girders", "the bearing replacement sequence",
             "the handrail fixings", "the lighting poles", "the temporary jacking frames"],
    "place": ["the dumpling place", "Rocket Coffee", "the food court in Centre Place", "the bakery on Hood Street",
              "the office kitchen", "the food truck by the river"],
    "chat": ["the Chiefs", "the heat", "weekend plans", "a Netflix series", "house prices in Hamilton",
             "the new parking charges", "a podcast episode", "the roadworks on Anglesea Street", "the cricket",
             "the fuel prices"],
    "reminder": ["the hens' pellets", "Milo's sports fees", "the horn practice", "calling Ria",
                 "the library books", "paying the rates", "the car's warrant of fitness", "the AAVSO charts",
                 "the band subs", "the Bee Card top-up"],
    "eod": ["RFIs under control", "long day of meetings", "calc check done", "quiet day", "mostly on site",
            "two drawings issued", "good session with Sione", "inbox at zero"],
    "evening": ["dinner with Rhys and Milo", "an hour at the telescope", "horn practice", "read in bed",
                "video call with Joost", "drove Milo to practice", "early night"],
    "weekend": ["farmers market and a slow breakfast", "cleaned out the coop", "walk at Hamilton Gardens",
                "mowed the lawn", "read in the sun", "watched Milo's game", "cooked a big stamppot",
                "bike ride along the river", "garden day", "lazy day at home"],
    "lookup": ["train times in the Netherlands", "a restaurant for Saturday", "second-hand eyepieces",
               "flights to Amsterdam", "a new hi-vis jacket", "motels in Tauranga", "a book on the southern sky",
               "bearing suppliers in Australia"],
    "rfinote": ["{n} new, {m} closed", "nothing urgent", "one urgent from Nikhil", "{m} waiting on Aroha",
                "{N} open, mostly drawings", "a cluster about the {rfitopic}"],
    "rfitopic": RFI_TOPICS,
    "sitenote": ["barge work on pier {m}", "the night crew's handover", "scaffold going up on pier {m}",
                 "concrete pour on the cross-beams", "traffic signals misbehaving", "tidy site, good progress",
                 "crew waiting on a hold point", "the river path detour signs"],
    "obs": OBS_TARGETS,
    "weather": ["clear", "cloudy", "hazy", "clear after 22:00", "rain", "patchy cloud"],
}
WEEKDAY = [
    (0.8, 1, 1, 7.6, 8.6, ["Triaged Anneke's inbox: {n} emails, {m} need replies.",
                            "Morning triage: {N} unread, nothing urgent.",
                            "Cleared Teams messages; flagged {m} threads for Anneke."]),
    (0.8, 1, 2, 9, 12, ["Checked {colleague}'s calcs for {calc}.",
                        "Reviewed {colleague}'s markups on {calc}; sent back a few comments.",
                        "Went through {calc} with {colleague}.", "Signed off {colleague}'s sketch of {calc}."]),
    (0.7, 1, 2, 12, 17, ["Worked on {calc}.", "Afternoon on {calc}.", "Made progress on {calc}.",
                          "Wrote up the design note for {calc}."]),
    (0.6, 1, 1, 10, 16, ["RFI register: {rfinote}.", "Checked the RFI list: {rfinote}."]),
    (0.3, 1, 1, 12, 13.3, ["Lunch with {colleague} at {place}; talked about {chat}.",
                           "Lunch with {colleague}; talked about {chat}.", "Quick lunch at {place}."]),
    (0.45, 1, 1, 17, 20, ["Reminded Anneke about {reminder}.", "Set a reminder for {reminder}."]),
    (0.55, 1, 1, 16.5, 18, ["End of day: {eod}.", "Wrap-up: {eod}."]),
    (0.4, 1, 1, 13, 16.5, ["Site walk: {sitenote}.", "On site with Nikhil: {sitenote}."]),
    (0.3, 1, 1, 11, 17, ["Anneke asked me to look up {lookup}.", "Looked up {lookup} for Anneke."]),
    (0.3, 1, 1, 19.5, 22.5, ["Evening: {evening}.", "{evening}."]),
    (0.25, 1, 1, 9.5, 15, ["Answered {n} questions from Brannock by email.",
                           "Sent {colleague} notes from the site walk.", "Updated the project risk register.",
                           "Prepared slides for the council update."]),
    (0.35, 1, 1, 6.5, 7.4, ["Sky check: {weather} overnight.", "Looked at the cloud forecast: {weather} tonight.",
                            "Checked the river gauge before work."]),
]
WEEKEND = [
    (0.95, 1, 1, 10, 19, ["Quiet weekend day; {weekend}.", "Weekend: {weekend}.", "Weekend plans: {weekend}."]),
    (0.2, 1, 1, 7, 9.5, ["Sky check: {weather} overnight.", "Fed the hens and collected {m} eggs."]),
    (0.45, 1, 1, 13, 18, ["Horn practice, {N} minutes.", "Band parts: went over {bandpiece} at home."]),
    (0.25, 1, 1, 17, 21, ["Reminded Anneke about {reminder}.", "Evening: {evening}."]),
]
SLOTS["bandpiece"] = BAND_PIECES

UNANSWERABLE = [
    "What is Jared's shoe size?",
    "Which dentist do I go to?",
    "What is Bruce's wife's name?",
    "What is Rhys's mother's maiden name?",
    "What car does Kirsty drive?",
    "Which university did Aroha go to?",
    "When is Sione's birthday?",
    "What is the name of Hugh's dog?",
    "What is the wifi password at the club's dark site?",
    "Which company made the cathodic protection anodes?",
    "How do we jack the deck if a lead-rubber bearing fails?",
    "What is the procedure for rescuing someone who falls off the barge?",
    "How much did the crew barbecue cost?",
    "What did we decide about painting the old piers?",
    "How many vehicles used the detour in its first week?",
    "Who is the council's external auditor for the bridge project?",
    "What does Femke's father do?",
    "How old is Joost?",
    "What focal length is the 8-inch Celestron?",
    "What did the Dobsonian cost?",
    "What grade did Milo get in maths?",
    "Who won the club's astrophotography competition?",
    "What is Lionel's observer code?",
    "How many players are in the solo cornet section?",
    "Which hotel did we book in Rotterdam?",
    "What mark did the adjudicator give our march?",
    "On which date does the underpass tender close?",
    "Who is Brannock's managing director?",
    "What did the mayor say in the speech at the opening?",
    "What is Tess's email address?",
]

EXTRA_QUESTIONS = [
    ("fact", "What is my job title now?",
     ["f:self:anneke:job-title:2", "p:associate-promotion", "~promotion to Associate"]),
    ("fact", "What's the bridge contract worth now, with the changes?",
     ["f:work:monckton:contract-value:3", "~contract now 15.6 M NZD"]),
    ("fact", "How far behind programme is the job?", ["f:work:monckton:weeks-behind:4", "~now two weeks behind"]),
    ("fact", "How many of the old bearings have been swapped out?",
     ["f:work:monckton:bearings-replaced:3", "~All 16 bearings are now replaced"]),
    ("fact", "How many spans does the river crossing have?", ["f:work:monckton:spans:1", "p:bridge-description"]),
    ("fact", "Has the outside reviewer signed off the main seismic package yet?",
     ["f:work:peer-review:status:2", "~Hugh's design certificate"]),
    ("fact", "How many of the new path girders are up?",
     ["f:work:monckton:girders-installed:2", "p:big-lift", "~All six girders in place"]),
    ("event", "When did the river path get hit by something dropped from above?",
     ["p:dropped-spanner", "~podger spanner fell"]),
    ("updated", "When did the girders finally get scheduled for?", ["p:lift-may", "~the lift moves to 2 May"]),
    ("updated", "When can people start walking and biking across the new path?",
     ["p:opening-3-july", "~move the opening to 3 July", "k:opening-ceremony"]),
    ("updated", "Who's my client contact at the council these days?", ["p:marcus-runs-project", "~Marcus Tipene is taking over"]),
    ("updated", "How is the damaged river pier being strengthened?", ["p:pier3-jacket", "~pier 3 gets a concrete jacket"]),
    ("updated", "When is my brother getting married?", ["p:joost-wedding-december", "~the wedding is moving to December"]),
    ("updated", "Which part do I play in the band now?", ["p:solo-horn", "~take over solo horn"]),
    ("updated", "What feed are the chickens on now?", ["p:hens-pellets", "k:hen-feed"]),
    ("updated", "Are the buses still going over the bridge?", ["p:buses-detour", "~Buses detoured from today"]),
    ("updated", "Where does the astronomy club get together now?", ["p:club-te-pahu", "~new Te Pahu clubrooms"]),
    ("updated", "What car do we have now?", ["p:car-leaf", "~collected the Leaf"]),
    ("updated", "Who's looking after the bridge model while Kirsty is away?", ["p:tomasi-model", "~Tomasi takes over the model"]),
    ("event", "What did my manager and I go over at the catch-up right after the Easter long weekend?",
     ["p:one-on-one-bruce-2026-04-07"]),
    ("decision", "What did we agree at the last site meeting before the walkway steel went in?",
     ["p:site-meeting-2026-04-29", "~lift goes ahead Saturday if"]),
    ("event", "When did my mother head back home after her visit?", ["~Drove Ria to Auckland airport", "k:ria-return"]),
    ("event", "What did the project control group spend most of its time on in early April?",
     ["p:pcg-06-2026-04-01"]),
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
    attrs = ["extension", "location", "start-year", "manager", "discipline"]
    for row in COLLEAGUE_FACTS:
        name = row[0]
        for attr, val in zip(attrs, row[1:]):
            label = "f:people:%s:%s:1" % (name, attr)
            d = b.rday(skew=1.8, weekday=True)
            b.add(label, d, "fact", domain="people", subject=name, attribute=attr, value=val)
            if (name, attr) in COLLEAGUE_FACT_QS:
                b.q("fact", COLLEAGUE_FACT_QS[(name, attr)], [label])
    b.kv_block(KV)
    b.journal_block(JOURNAL)

    # weekly plan on Mondays (Tuesday after a Monday holiday)
    for w, focus in enumerate(WEEKLY_FOCUS):
        d = w * 7
        if d >= NDAYS:
            break
        if d in HOLIDAYS:
            d += 1
        key = "week-priorities-%s" % iso_date(d)
        label = "p:" + key
        b.add(label, d, "persona", hour=7.9, domain="self", facet="events", key=key,
              value="Priorities for the week of %s: %s." % (fmt_date(w * 7), focus))
        if w in WEEKLY_FOCUS_QS:
            b.q("event", WEEKLY_FOCUS_QS[w], [label])

    # reading notes
    for i, (src, lesson) in enumerate(READING):
        d = b.rday(skew=1.0)
        b.add(None, d, "persona", domain="self", facet="beliefs", key="reading-note-%02d" % (i + 1),
              value="Reading note from %s: %s." % (src, lesson))

    # recurring series
    special_one_on_one = {92: "talked about the crane delay and Anneke's application for Associate"}
    special_site = {114: "agreed the girder lift goes ahead on Saturday only if the 6:00 forecast gust is under "
                         "35 km/h, with the river path and boat ramp closed from Friday 18:00"}
    special_pcg = {86: "mostly the cost of the pier 3 jacket and whether the opening date can hold"}
    pcg = 0
    for d in range(NDAYS):
        wd = d % 7
        # 1:1 with Bruce: Tuesdays 9:30, Mondays 15:00 from 9 March; the next day after a Monday holiday
        one = (wd == 1 and d < 63) or (wd == 0 and d >= 63 and d not in HOLIDAYS) or \
              (wd == 1 and d >= 63 and d - 1 in HOLIDAYS)
        if one:
            key = "one-on-one-bruce-%s" % iso_date(d)
            topic = special_one_on_one.get(d) or rng.choice(ONE_ON_ONE_TOPICS)
            b.add("p:" + key, d, "persona", hour=9.5 if d < 63 else 15, domain="work", facet="events", key=key,
                  value="1:1 with Bruce on %s: %s." % (fmt_date(d), topic))
        if wd == 3 and d >= 3 and d not in HOLIDAYS:  # mentoring Sione
            b.add(None, d, "persona", hour=16, domain="people", facet="events",
                  key="mentoring-sione-%s" % iso_date(d),
                  value="Mentoring session with Sione on %s: %s." % (fmt_date(d), rng.choice(MENTOR_TOPICS)))
        # weekly site progress meeting: Thursdays 10:00 from 12 Feb, Wednesdays 7:30 from 22 April
        if (wd == 3 and 38 <= d < 105) or (wd == 2 and d >= 105):
            key = "site-meeting-%s" % iso_date(d)
            topic = special_site.get(d) or rng.choice(SITE_MEETING_TOPICS)
            b.add("p:" + key, d, "persona", hour=10 if d < 105 else 7.5, domain="projects", facet="events", key=key,
                  value="Site progress meeting on %s: %s." % (fmt_date(d), topic))
        if wd == 2 and d % 14 == 2 and d >= 9:  # project control group, fortnightly Wednesdays
            pcg += 1
            key = "pcg-%02d-%s" % (pcg, iso_date(d))
            if d in special_pcg:
                text = special_pcg[d]
            else:
                t1, t2 = rng.sample(PCG_TOPICS, 2)
                text = "mostly %s and %s" % (t1, t2)
            b.add("p:" + key, d, "persona", hour=14, domain="projects", facet="events", key=key,
                  value="Project control group meeting %d with the council on %s: %s." % (pcg, fmt_date(d), text))
        if (wd == 2 and d < 66) or (wd == 0 and d >= 70):  # band rehearsal
            b.add(None, d, "persona", hour=19, domain="band", facet="events",
                  key="rehearsal-%s" % iso_date(d),
                  value="Band rehearsal on %s: worked on %s." % (fmt_date(d), rng.choice(BAND_PIECES)))
    # observing log (nights, any day of the week)
    for i in range(26):
        d = b.rday(skew=1.0)
        scope = "12-inch Dobsonian" if d < 112 else rng.choice(["8-inch Celestron", "8-inch Celestron",
                                                                  "12-inch Dobsonian"])
        b.add(None, d, "persona", hour=rng.uniform(20.5, 23.5), domain="astro", facet="events",
              key="observing-log-%02d-%s" % (i + 1, iso_date(d)),
              value="Observing log %s: %s with the %s, seeing %d out of 5." % (
                  fmt_date(d), rng.choice(OBS_TARGETS), scope, rng.randint(2, 5)))
    # contractor RFIs
    n = 0
    combos = [(c, i) for c in RFI_TOPICS for i in RFI_ISSUES]
    rng.shuffle(combos)
    days = sorted(b.rday(skew=0.8, weekday=True, lo=24) for _ in range(180))
    days = [d for d in days if d not in HOLIDAYS]
    for d, (c, i) in zip(days, combos):
        n += 1
        b.add(None, d, "persona", domain="projects", facet="events", key="rfi-%03d" % n,
              value="RFI-%03d from Brannock: %s; answered by %s." % (
                  n, i.format(c=c), rng.choice(["Anneke", "Jared", "Sione", "Aroha", "Kirsty"])))

    b.daily_journals(SLOTS, WEEKDAY, WEEKEND, skip_days=())
    for d in range(NDAYS):
        if is_weekend(d) or d in HOLIDAYS or rng.random() > 0.78:
            continue
        text = b.fill(rng.choice(["Team stand-up: {n} items, {m} blockers.", "Stand-up: went over the RFI list.",
                                  "Stand-up: {colleague} flagged a drawing clash.", "Short stand-up, nothing major."]),
                      SLOTS)
        b.add(None, d, "journal", hour=8.5, content=text)
    # bursty days
    for d, start, lines in (
            (44, 7.4, ["Flood: Brannock pulled the crew off the pier platforms.",
                       "Flood: river path closed at both ends.",
                       "Flood: tug on its way from Raglan harbour, ETA two hours.",
                       "Flood: Deborah told, phone call first as she prefers.",
                       "Flood: regional council says the peak is expected mid-afternoon."]),
            (100, 10.3, ["Stop-work: all deck work halted, crew to the site office.",
                         "Stop-work: Owen on site, area taped off.",
                         "Stop-work: Deborah called before the written notice.",
                         "Stop-work: WorkSafe notified as a precaution."]),
            (117, 6.6, ["Lift day: Matiu's karakia before the first lift.",
                        "Lift day: girder 1 rigged and lifting.", "Lift day: girder 1 landed on its bearings.",
                        "Lift day: girder 2 landed, small shim needed.",
                        "Lift day: crowd watching from the river path detour."])):
        h = start
        for line in lines:
            h += rng.uniform(0.1, 0.4)
            b.add(None, d, "journal", hour=h, content=line)
    b.unanswerable.extend(UNANSWERABLE)
    for qt, text, labels in EXTRA_QUESTIONS:
        b.q(qt, text, labels)
