"""Months of everyday chatter for the retention suite, generated from templates (seeded, so the
same seed gives the same conversation).

Topics are everyday small talk and work chatter — weather, series, cooking, football, the
sprint, the commute, books, music, the garden, hikes, gadgets, the city, coffee, running,
board games, podcasts, flat repairs — and deliberately steer clear of what the retention facts
are about (health, medicines, family, pets, money, documents, cars, codes), so a question about
a fact has one right answer. Every user line is a statement or a question a user might send;
each comes with a short assistant reply.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

# slot values shared by the templates ({name} in a template is filled from SLOTS["name"])
SLOTS: dict[str, list[str]] = {
    "weather": ["rainy", "grey", "windy", "sunny", "freezing", "muggy", "foggy", "stormy"],
    "day": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
    "series": ["The Lighthouse Keepers", "Copper Valley", "Night Shift Bakery",
               "Orbit Station Nine", "The Quiet Archive", "Harbour Lights", "Red Meridian",
               "Salt and Glass"],
    "dish": ["a mushroom risotto", "shakshuka", "lentil soup", "a lemon tart", "pad see ew",
             "gnocchi with brown butter", "a chickpea curry", "focaccia", "ratatouille",
             "banana bread", "miso ramen", "a tomato galette"],
    "team": ["Rosenborg", "Brann", "Molde", "Viking", "Bodø/Glimt", "Lillestrøm"],
    "score": ["2-1", "0-0", "3-2", "1-1", "4-0", "1-3"],
    "task": ["the billing migration", "the onboarding flow", "the search API", "the Q3 report",
             "the data export", "the login page redesign", "the invoice parser",
             "the monitoring dashboards", "the release notes", "the vendor contract review"],
    "colleague": ["Henrik", "Sofie", "Marius", "Nora", "Kasper", "Elin", "Tobias", "Ragnhild"],
    "meeting": ["stand-up", "retro", "planning session", "all-hands", "sync with design",
                "budget review", "customer call", "architecture review"],
    "line": ["the 8:12 train", "the tram", "bus 31", "the ferry", "the metro"],
    "delay": ["ten", "fifteen", "twenty", "twenty-five", "forty"],
    "book": ["The Salt Road", "A Map of Small Rooms", "Winter Orchard", "The Glass Engineer",
             "Letters from the Fjord", "Under Copper Skies", "The Last Cartographer"],
    "genre": ["jazz", "synth-pop", "folk", "lo-fi beats", "baroque", "indie rock", "ambient"],
    "artist": ["Aurora Lane", "The Paper Kites", "Mild Harbour", "Oskar Berg Trio",
               "Neon Fjord", "Lisa Hale"],
    "plant": ["tomatoes", "basil", "sunflowers", "the apple tree", "the roses", "the peas",
              "the strawberries", "the lavender"],
    "trail": ["the ridge trail", "the lake loop", "the old mining path", "the coastal path",
              "the forest track", "the waterfall route"],
    "km": ["8", "11", "14", "6", "17", "21"],
    "gadget": ["my laptop", "the router", "my headphones", "the printer", "my e-reader",
               "the smart speaker", "my phone charger"],
    "problem": ["keeps disconnecting", "won't turn on", "is really slow", "makes a buzzing sound",
                "drains the battery", "keeps freezing"],
    "event": ["the street food festival", "the harbour market", "the jazz night at the library",
              "the open-air cinema", "the marathon", "the flea market", "the light festival"],
    "coffee": ["a flat white", "an oat cortado", "a filter coffee", "a double espresso",
               "a cardamom latte"],
    "cafe": ["Kaffebrenneriet", "the corner bakery", "Café Fjell", "the place by the station"],
    "pace": ["5:40", "6:05", "5:15", "6:30", "5:55"],
    "game": ["Catan", "Azul", "Ticket to Ride", "Wingspan", "Carcassonne", "Codenames"],
    "podcast": ["a history podcast", "a show about urban planning", "a science podcast",
                "a true-crime series", "an interview show with chefs"],
    "fix": ["the dripping kitchen tap", "a squeaky door hinge", "the wobbly shelf",
            "the bathroom grout", "a flickering light in the hallway", "the stuck window"],
    "hour": ["7", "8", "9", "10", "11"],
}

# (user template, assistant template) by topic
TEMPLATES: dict[str, list[tuple[str, str]]] = {
    "weather": [
        ("Another {weather} {day}, typical.", "Hopefully the weekend is nicer."),
        ("The forecast says {weather} until {day}.", "Good time for indoor plans, then."),
        ("Ugh, it's {weather} again today.", "Sounds like a day for staying in with a hot drink."),
        ("Is it supposed to stay {weather} all week?", "The forecast changes fast; I'd check again tomorrow."),
        ("Walked to work in {weather} weather, not fun.", "At least the walk's done. Dry off and warm up!"),
        ("Finally some sun after all that {weather} stuff.", "Enjoy it while it lasts!"),
    ],
    "series": [
        ("Episode three of {series} dragged a bit.", "Middle episodes often do; it may pick up."),
        ("Who else would like {series}, you think?", "Anyone who enjoys character-driven drama."),
        ("Started watching {series} last night.", "How's the first episode? I hear it builds slowly."),
        ("The finale of {series} was wild.", "No spoilers here — but it sounds like it delivered."),
        ("Should I binge {series} this weekend?", "If you like slow-burn stories, it's a good pick."),
        ("I gave up on {series} halfway through season two.", "Fair — not every show keeps its pace."),
    ],
    "cooking": [
        ("Meal-prepped {dish} for the week.", "Smart — that saves a lot of weekday time."),
        ("What goes well with {dish}?", "A simple green salad and some good bread."),
        ("Made {dish} for dinner tonight.", "That sounds delicious. How did it turn out?"),
        ("Any tips for {dish}?", "Take your time with the base and season at the end."),
        ("Trying {dish} for the first time on {day}.", "Fun! Prep everything before you start."),
        ("My {dish} came out a bit bland.", "A squeeze of lemon or more salt usually rescues it."),
    ],
    "football": [
        ("{team} need a new striker, honestly.", "The transfer window isn't far off."),
        ("Watched {team} at the pub on {day}.", "Pub matches have the best atmosphere."),
        ("{team} won {score} yesterday!", "A good result — were you watching live?"),
        ("Can't believe {team} drew again.", "Frustrating, but the season is long."),
        ("Going to the {team} game on {day}.", "Enjoy the match! Dress warm for the stands."),
    ],
    "work": [
        ("Spent all morning on {task}.", "That's a big chunk. Making progress?"),
        ("{colleague} and I paired on {task} today.", "Pairing helps on tricky parts. Went well?"),
        ("The {meeting} ran over by half an hour.", "Those overruns eat the day. Hope it was useful."),
        ("I need to finish {task} before {day}.", "Want to break it into smaller steps?"),
        ("{colleague} asked me to look at {task} again.", "Second looks catch a lot."),
        ("Skipping the {meeting} today, too much to do.", "Sometimes focus time matters more."),
        ("Shipped {task} finally!", "Congrats! That must feel good."),
    ],
    "commute": [
        ("{line} was packed this morning.", "Rush hour is rough. Maybe leave a bit later?"),
        ("Missed {line} by a minute.", "So annoying! Did the next one come soon?"),
        ("{line} was {delay} minutes late again.", "Annoying. Maybe an earlier departure helps?"),
        ("Took {line} instead of cycling today.", "Sensible on a day like this."),
        ("The commute was smooth for once.", "Nice — a calm start makes a difference."),
    ],
    "books": [
        ("Picked up {book} at the library.", "Nice, enjoy it!"),
        ("Not sure about the ending of {book}.", "Ambiguous endings split readers."),
        ("Halfway through {book}.", "How are you finding it so far?"),
        ("Just finished {book}, what a great ending.", "Love that feeling. Anything next on the list?"),
        ("Is {book} worth reading?", "Readers who like quiet, character-driven books rate it well."),
    ],
    "music": [
        ("Made a {genre} playlist for work.", "Sounds like a productive soundtrack."),
        ("Is {artist} touring this year?", "Their website usually lists dates early."),
        ("Been listening to a lot of {genre} lately.", "Good focus music. Any favourite albums?"),
        ("{artist} released a new album.", "Exciting! Have you given it a full listen yet?"),
        ("Saw {artist} live on {day}.", "That must have been a great night."),
    ],
    "garden": [
        ("Planted {plant} along the fence.", "They'll like the sun there."),
        ("Should I cut back {plant} now?", "Late autumn is usually a safe time."),
        ("The {plant} are finally coming along.", "Nice! Regular watering seems to be paying off."),
        ("Slugs got to {plant} overnight.", "Beer traps or copper tape might help."),
        ("Spent the afternoon weeding around {plant}.", "Satisfying work, even if it's tiring."),
    ],
    "hiking": [
        ("Any good snacks for {trail}?", "Nuts, dried fruit and a sandwich never fail."),
        ("Got lost for a bit on {trail}, haha.", "An adventure! Glad you found your way."),
        ("Hiked {trail} today, about {km} km.", "That's a solid hike. How was the view?"),
        ("Thinking of doing {trail} on {day}.", "Check the weather and bring layers."),
        ("{trail} was muddy but beautiful.", "Sounds worth the mud."),
    ],
    "gadgets": [
        ("Updated {gadget} and now it {problem}.", "Updates can do that; a rollback might help."),
        ("Is it worth getting a case for {gadget}?", "If you carry it around a lot, yes."),
        ("{gadget} {problem}.", "Have you tried restarting it and checking for updates?"),
        ("Finally fixed {gadget}, it was a loose cable.", "Classic! Glad it's sorted."),
        ("Thinking about replacing {gadget}.", "If it's more than a few years old, it might be time."),
    ],
    "city": [
        ("Tickets for {event} sold out already.", "Maybe there'll be a resale option."),
        ("Thinking of volunteering at {event}.", "That could be fun and a good way to meet people."),
        ("Went to {event} on {day}.", "Fun! Was it crowded?"),
        ("Is {event} on again this year?", "It usually comes back every year — check the city's site."),
        ("{event} was packed.", "Popular events are like that. Did you find anything good?"),
    ],
    "coffee": [
        ("Trying to make {coffee} at home.", "A good grinder makes the biggest difference."),
        ("{cafe} had a queue out the door today.", "Must be good coffee then!"),
        ("Had {coffee} at {cafe} this morning.", "A good start to the day."),
        ("{cafe} changed their beans, not sure I like it.", "Give it a few tries — tastes adjust."),
        ("Need {coffee} right now.", "Go for it, you've earned it."),
    ],
    "running": [
        ("My legs are sore after {km} km yesterday.", "Some stretching and an easy day will help."),
        ("New running shoes feel great on {trail}.", "Nice! Break them in slowly."),
        ("Ran {km} km this morning at {pace} pace.", "Strong run! How did your legs feel?"),
        ("Skipped my run, it was too {weather}.", "Rest days count too."),
        ("Signed up for a {km} km race in the autumn.", "Exciting goal! Time to plan some training."),
    ],
    "games": [
        ("Teaching my friends {game} on {day}.", "Fun — keep the first round simple."),
        ("Is {game} good with two players?", "It works, though it shines with more."),
        ("Played {game} with friends last night.", "Who won?"),
        ("Bought {game}, can't wait to try it.", "Great choice for a game night."),
        ("Lost at {game} again, haha.", "There's always a rematch."),
    ],
    "podcast": [
        ("Binged three episodes of {podcast} on {day}.", "Sounds like a good one!"),
        ("Any idea how to find more shows like {podcast}?", "The 'listeners also like' section is a good start."),
        ("Listening to {podcast} on the way in.", "Learn anything interesting?"),
        ("Found {podcast} that I really like.", "Nice find. How long are the episodes?"),
    ],
    "repairs": [
        ("Bought the wrong part for {fix}, ugh.", "Happens to everyone. Most shops take returns."),
        ("My neighbour helped me with {fix}.", "Good neighbours are the best."),
        ("Finally fixed {fix}.", "Well done! Small fixes make a home feel better."),
        ("Need to deal with {fix} this weekend.", "A short video tutorial usually helps."),
        ("Watched a tutorial on {fix}, seems doable.", "You've got this."),
    ],
    "misc": [
        ("Tired today, didn't sleep great.", "Take it easy if you can."),
        ("Finally {weather} enough to sit outside.", "Enjoy the fresh air!"),
        ("Cleaning the flat all {day} afternoon.", "Satisfying once it's done."),
        ("Long day. Going to bed early.", "Good idea. Sleep well."),
        ("Up at {hour} today, feeling good.", "Early starts can be nice."),
        ("What a week.", "Sounds like it's been a lot. Hope the weekend is calmer."),
        ("Any idea what to do on {day} evening?", "Maybe a walk and a new recipe?"),
    ],
}


def _fill(template: str, rng: random.Random) -> str:
    out = template
    for key, values in SLOTS.items():
        marker = "{" + key + "}"
        while marker in out:
            out = out.replace(marker, rng.choice(values), 1)
    return out[0].upper() + out[1:]


def chatter(seed: int = 13) -> Iterator[tuple[str, str]]:
    """An endless, reproducible stream of (user, assistant) chatter turns; the same exact user
    line does not come back within the last 200 turns."""
    rng = random.Random(seed)
    topics = sorted(TEMPLATES)
    recent: list[str] = []
    while True:
        topic = rng.choice(topics)
        user_t, reply_t = rng.choice(TEMPLATES[topic])
        user = _fill(user_t, rng)
        if user in recent:
            continue
        recent = [*recent[-199:], user]
        yield user, _fill(reply_t, rng)
